import Foundation
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
        if let apps {
            importer = ReceiptImporter(
                apps: apps.bundleIDs, serverAPIApps: Set(apps.apps.filter { $0.appleAPI == .serverAPI }.map(\.bundleID)))
        } else {
            let api = try ServerAPISettings.api(environment: environment, flag: appleAPIFlag)
            let bundleID = Settings.nonEmpty(environment["SUBRECON_BUNDLE_ID"])?.trimmingCharacters(in: .whitespaces)
            importer = ReceiptImporter(acceptsTransactionIDOnly: api == .serverAPI, apps: bundleID.map { [$0] } ?? [])
        }
        // The file first: one that cannot be read, or holds a bad row, opens (or creates) no database.
        let rows = try importer.rows(path: file, format: format)
        let store = try await openStore(ifMissing: .create)
        let summary: ImportSummary
        do {
            summary = try await importer.store(rows, in: store, nowMs: clock())
        } catch {
            await store.close()
            throw error
        }
        var linked = 0
        if summary.imported > 0 || summary.tokensRegistered > 0 {
            linked = await NotificationProcessor.linkAfterImport(
                store: store, environment: environment, appsFile: appsFileFlag, logger: logger)
        }
        await store.close()
        return ReceiptImportResult(summary: summary, linked: linked)
    }
}
