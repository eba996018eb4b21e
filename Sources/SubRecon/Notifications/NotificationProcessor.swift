import Foundation
import Logging
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Verifies App Store Server Notifications V2 and applies them: the receiver, `notifications
/// import` and `notifications backfill` all hand bodies to it.
///
/// A body is refused (nothing stored) unless its JWS verifies to the configured root, it is for
/// our app (bundle id, and app id in production when configured), its environment is Production
/// or Sandbox, and the signed transaction and renewal info inside verify the same way. A valid
/// notification is stored once per `notificationUUID` and applied through the run's reconciler
/// and writer, as of its `signedDate`: data older than what is stored never rolls a subscription
/// back (`stale`).
public struct NotificationProcessor: NotificationIntake {
    let store: any SubscriptionStore
    let settings: NotificationSettings
    let reconciler: ReceiptReconciler
    let clock: @Sendable () -> Int64
    let logger: Logger
    /// Notifications arriving together (the receiver's concurrent requests) share a transaction.
    let writes: NotificationWriteQueue

    public init(
        store: any SubscriptionStore, settings: NotificationSettings, reconciler: ReceiptReconciler,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.store = store
        self.settings = settings
        self.reconciler = reconciler
        self.clock = clock
        self.logger = logger
        writes = NotificationWriteQueue(store: store)
    }

    public func receive(body: [UInt8], source: NotificationSource) async -> NotificationIntakeResult {
        guard let signedPayload = try? NotificationBody.scan(body).signedPayload else {
            return .refused(.malformed, message: "the body is not JSON of the form {\"signedPayload\": \"...\"}")
        }
        return await process(signedPayload: signedPayload, source: source, countsAsDelivery: true)
    }

    /// Why `body` would be refused, without storing anything (nil: it would be accepted).
    /// `notifications import` checks every line first, so a file with a bad line changes nothing.
    public func check(body: [UInt8]) async -> (refusal: NotificationRefusal, message: String)? {
        guard let signedPayload = try? NotificationBody.scan(body).signedPayload else {
            return (.malformed, "not JSON of the form {\"signedPayload\": \"...\"}")
        }
        do {
            _ = try await verify(signedPayload)
            return nil
        } catch {
            return (error.refusal, error.message)
        }
    }

    /// Verifies, stores and applies one signed payload.
    func process(signedPayload: String, source: NotificationSource, countsAsDelivery: Bool) async -> NotificationIntakeResult {
        let write: NotificationWrite
        do {
            write = try await prepare(signedPayload: signedPayload, source: source, countsAsDelivery: countsAsDelivery)
        } catch {
            logger.warning("notification refused", metadata: ["notification.refusal": "\(error.refusal.rawValue)", "reason": "\(error.message)"])
            return .refused(error.refusal, message: error.message)
        }
        let record = write.notification
        if let token = record.appAccountToken, let otid = record.originalTransactionID {
            do {
                try await linkByToken(token, originalTransactionID: otid, bundleID: record.bundleID)
            } catch {
                logger.error("notification not stored: \(error)", metadata: ["notification.uuid": "\(record.uuid)"])
                return .unavailable(message: error.description)
            }
        }
        switch await writes.store(write) {
        case .success(let result):
            logger.info(
                "notification stored",
                metadata: [
                    "notification.uuid": "\(record.uuid)", "notification.type": "\(record.type)",
                    "notification.subtype": "\(record.subtype ?? "-")", "notification.outcome": "\(result.outcome.rawValue)",
                    "notification.duplicate": "\(result.duplicate)", "notification.source": "\(source.rawValue)",
                ])
            return .stored(
                uuid: record.uuid, outcome: result.outcome, duplicate: result.duplicate, signedDateMs: record.signedDateMs)
        case .failure(let error):
            logger.error("notification not stored: \(error)", metadata: ["notification.uuid": "\(record.uuid)"])
            return .unavailable(message: error.description)
        }
    }

    /// Applies unmatched notifications whose receipt has arrived since (after an import or a
    /// run). Each is verified again before it is used. Returns how many were linked.
    public func linkUnmatched() async throws(StoreError) -> Int {
        var linked = 0
        var tried: Set<String> = []
        while true {
            let batch = try await store.linkableNotifications(limit: 200).filter { !tried.contains($0.uuid) }
            if batch.isEmpty { return linked }
            for notification in batch {
                tried.insert(notification.uuid)
                switch await process(signedPayload: notification.signedPayload, source: .import, countsAsDelivery: false) {
                case .stored(_, let outcome, _, _) where outcome != .unmatched: linked += 1
                case .unavailable(let message): throw .failed(operation: "linking notifications", reason: message)
                default: break
                }
            }
        }
    }

    /// The verified notification as the store keeps it, and what the store should do with it.
    func prepare(signedPayload: String, source: NotificationSource, countsAsDelivery: Bool)
        async throws(SignedItemVerifier.Problem) -> NotificationWrite
    {
        let verified = try await verify(signedPayload)
        let nowMs = clock()
        let record = StoredNotification(
            uuid: verified.payload.notificationUUID, type: verified.payload.notificationType,
            subtype: verified.payload.subtype, environment: verified.environment,
            signedDateMs: verified.payload.signedDate, originalTransactionID: verified.transaction?.originalTransactionId,
            transactionID: verified.transaction?.transactionId, source: source, receivedAtMs: nowMs,
            signedPayload: signedPayload, bundleID: verified.bundleID,
            appAccountToken: verified.transaction?.appAccountToken.flatMap(Self.token))
        return NotificationWrite(notification: record, plan: plan(verified, nowMs: nowMs), countsAsDelivery: countsAsDelivery)
    }

    /// A token as stored (lower-case), or nil when what Apple carried is not a UUID.
    static func token(_ text: String) -> String? {
        UUID(uuidString: text) == nil ? nil : text.lowercased()
    }

    /// A transaction no stored receipt knows yet, whose token the app server registered for a
    /// user (an import's `app_account_token`), is that user's: it is stored for them as a receipt
    /// known by its transaction id, so the notification applies to it like any other.
    func linkByToken(_ token: String, originalTransactionID otid: String, bundleID: String?) async throws(StoreError) {
        guard let user = try await store.userOfToken(token, forUnknownTransaction: otid) else { return }
        let row = ImportRow(line: 0, userID: user, receiptData: "", transactionID: otid, bundleID: bundleID)
        _ = try await store.importReceipts([row], nowMs: clock())
        logger.info("a notification's transaction is linked to its user by the app account token", metadata: ["notification.transaction": "\(otid)"])
    }

    // MARK: - Verification

    func verify(_ signedPayload: String) async throws(SignedItemVerifier.Problem) -> VerifiedNotification {
        let items = SignedItemVerifier(
            verifier: settings.verifier,
            apps: settings.apps.map { AppIdentity(bundleID: $0.bundleID, appAppleID: $0.appAppleID) })
        let verified = try await items.notification(signedPayload)
        verified.transaction?.logMoneyProblems(logger)
        return verified
    }

    /// What the store should do with a verified notification.
    func plan(_ verified: VerifiedNotification, nowMs: Int64) -> NotificationPlan {
        if verified.payload.notificationType == "TEST" { return .record(.test) }
        guard let transaction = verified.transaction, let otid = transaction.originalTransactionId,
            let environment = verified.environment,
            transaction.type == nil || transaction.type == "Auto-Renewable Subscription"
        else { return .record(.ignored) }
        let products = settings.app(verified.bundleID)?.products ?? settings.products
        if !products.isEmpty, !products.contains(transaction.productId ?? "") {
            return .record(.ignored)
        }
        let account = AppleAccount(
            environment: environment, transactions: [transaction.appleTransaction],
            renewals: verified.renewal.map { [$0.pendingRenewal] } ?? [], appleStatus: 0,
            asOfMs: verified.payload.signedDate, isSingleEvent: true)
        var appReconciler = reconciler
        appReconciler.products = products
        let reconciler = appReconciler
        return .apply(periodKeys: [transaction.appleTransaction.periodKey].compactMap { $0 }) { snapshot in
            var update = reconciler.reconcile(.answered(account), snapshot: snapshot, nowMs: nowMs, runID: nil)
            // Older than what is stored: the receipt's bookkeeping stays as the newer data left it.
            if update.staleSubscriptions.contains(otid) { update.receipt = nil }
            return update
        }
    }
}
