import SubReconAppStore
import SubReconModel
import SubReconStore

extension CommandContext {
    /// What `subrecon import` did.
    public struct ReceiptImportResult: Sendable {
        public var summary: ImportSummary
        /// Notifications that were waiting for these receipts, now applied.
        public var linked: Int
    }

    /// `subrecon import FILE|-`: every row checked, then all stored or none; notifications that
    /// were waiting for the new receipts are linked (when notifications are configured).
    /// - Parameter appleAPIFlag: `--apple-api`; server-api accepts rows with only a transaction_id.
    public func importReceipts(file: String, format: ImportFormat?, appleAPIFlag: String?) async throws -> ReceiptImportResult {
        let apps = try appsFile(perAppFlagsGiven: appleAPIFlag == nil ? [] : ["--apple-api"])
        let importer: ReceiptImporter
        let store: any SubscriptionStore
        if let apps {
            store = try await openStore(ifMissing: .create)
            importer = ReceiptImporter(
                store: store, apps: apps.bundleIDs,
                serverAPIApps: Set(apps.apps.filter { $0.appleAPI == .serverAPI }.map(\.bundleID)))
        } else {
            let api = try ServerAPISettings.api(environment: environment, flag: appleAPIFlag)
            let bundleID = Settings.nonEmpty(environment["SUBRECON_BUNDLE_ID"])?.trimmingCharacters(in: .whitespaces)
            store = try await openStore(ifMissing: .create)
            importer = ReceiptImporter(
                store: store, acceptsTransactionIDOnly: api == .serverAPI, apps: bundleID.map { [$0] } ?? [])
        }
        let summary = try await importer.importFile(path: file, format: format, nowMs: clock())
        var linked = 0
        if summary.imported > 0 || summary.tokensRegistered > 0 {
            linked = await NotificationProcessor.linkAfterImport(
                store: store, environment: environment, appsFile: appsFileFlag, logger: logger)
        }
        return ReceiptImportResult(summary: summary, linked: linked)
    }
}
