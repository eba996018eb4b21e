import AppleSignedData
import Logging
import SubReconModel
import SubReconStore

extension NotificationProcessor {
    /// The processor every notifications command uses, on the wall clock.
    public static func live(store: any SubscriptionStore, settings: NotificationSettings, logger: Logger) -> NotificationProcessor {
        NotificationProcessor(
            store: store, settings: settings,
            // What a notification applies is as fresh as it gets: scheduled as notifications flow.
            reconciler: ReceiptReconciler(products: settings.products, duePolicy: .notified),
            clock: { WallClock.unixMilliseconds() }, logger: logger)
    }

    /// Applies unmatched notifications whose receipt has now arrived (after `import` or a run),
    /// when notifications are configured (SUBRECON_BUNDLE_ID). A failure is logged, never fatal:
    /// the receipts are stored, and the next import or run links them.
    static func linkAfterImport(
        store: any SubscriptionStore, environment: [String: String], appsFile: String?, logger: Logger
    ) async -> Int {
        guard let settings = try? NotificationSettings.resolve(environment: environment, flags: .init(appsFile: appsFile))
        else { return 0 }
        do {
            return try await live(store: store, settings: settings, logger: logger).linkUnmatched()
        } catch {
            logger.warning("notifications waiting for these receipts were not linked: \(error)", source: CommandContext.logSource)
            return 0
        }
    }
}
