import ArgumentParser
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// What verifying notifications needs (no API key: `serve` and `import` never call Apple).
struct NotificationOptions: ParsableArguments {
    @Option(help: "The app's bundle ID; notifications for other apps are refused (SUBRECON_BUNDLE_ID).")
    var bundleID: String?

    @Option(help: "Root certificate (PEM) signatures must chain to (SUBRECON_APPLE_ROOT_CA_FILE; default Apple Root CA - G3).")
    var appleRootCAFile: String?

    @Option(help: "The app's Apple ID, checked on production notifications when set (SUBRECON_APP_APPLE_ID).")
    var appAppleID: Int64?

    @Option(name: .customLong("product"), help: "A product ID to apply; repeat for each (SUBRECON_PRODUCTS; default all).")
    var products: [String] = []

    /// The settings, or exit 2 with the reason.
    func settings(_ global: GlobalOptions) throws -> NotificationSettings {
        do {
            return try NotificationSettings.resolve(
                environment: global.environment, bundleIDFlag: bundleID, rootCAFileFlag: appleRootCAFile,
                appAppleIDFlag: appAppleID, productsFlag: products)
        } catch {
            Console.error(error.description)
            throw ExitCode(.configuration)
        }
    }
}

extension NotificationProcessor {
    /// The processor every notifications command uses, on the wall clock.
    static func live(store: any SubscriptionStore, settings: NotificationSettings, logger: Logger) -> NotificationProcessor {
        NotificationProcessor(
            store: store, settings: settings,
            // What a notification applies is as fresh as it gets: scheduled as notifications flow.
            reconciler: ReceiptReconciler(products: settings.products, duePolicy: .notified),
            clock: { ReconciliationJob.wallClockMs() }, logger: logger)
    }
}

extension NotificationProcessor {
    /// Applies unmatched notifications whose receipt has now arrived (after `import`), when
    /// notifications are configured (SUBRECON_BUNDLE_ID). A failure is logged, never fatal: the
    /// receipts are imported, and the next import or run links them.
    static func linkAfterImport(store: any SubscriptionStore, environment: [String: String], logger: Logger) async -> Int {
        guard let settings = try? NotificationSettings.resolve(environment: environment) else { return 0 }
        do {
            return try await live(store: store, settings: settings, logger: logger).linkUnmatched()
        } catch {
            logger.warning("notifications waiting for these receipts were not linked: \(error)")
            return 0
        }
    }
}
