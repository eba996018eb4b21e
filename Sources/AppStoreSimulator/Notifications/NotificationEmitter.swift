import Foundation

/// Makes the simulator's notifications (from a subscriber's scenario, or one on request) and
/// records each in the log that Get Notification History serves.
struct NotificationEmitter: Sendable {
    let authority: LazySigningAuthority
    /// Each notification is for the app of its account (`TEST`: for the app asked).
    let apps: SimulatedAppCatalog
    let log: SimulatedNotificationLog
    /// Tokens set through Set App Account Token, which the account's notifications carry from then on.
    let registry: SimulatedAccountRegistry

    private func renderer(_ app: SimulatedApp) -> NotificationPayloadRenderer {
        NotificationPayloadRenderer(authority: authority.value, bundleID: app.bundleID, appAppleID: app.appAppleID)
    }

    /// The notifications `subscriber`'s subscriptions produced in (`fromMs`, `toMs`], ordered by
    /// `signedDate` (then slot). None for an account Apple does not know or has lost (a
    /// `fixedStatus` receipt), or one without subscriptions.
    func notifications(
        for subscriber: SimulatedSubscriber, afterMs fromMs: Int64, throughMs toMs: Int64, signing: NotificationSigning,
        sendAttempt: NotificationSendAttemptResult?
    ) -> [SimulatedNotification] {
        guard subscriber.fixedStatus == nil || subscriber.fixedStatus == 0 else { return [] }
        var events: [SubscriptionEvent] = []
        for (slot, subscription) in subscriber.subscriptions.enumerated() {
            events += SubscriptionEvent.events(
                of: subscription, slot: slot, ownership: subscriber.ownership, afterMs: fromMs, throughMs: toMs)
        }
        // Stable: events of one slot at one time keep the order Apple sends them in.
        let ordered = events.enumerated().sorted { ($0.element.timeMs, $0.element.slot, $0.offset) < ($1.element.timeMs, $1.element.slot, $1.offset) }
        var ordinal = 0
        var previous: (time: Int64, slot: Int)?
        return ordered.map { _, event in
            ordinal = previous.map { $0 == (event.timeMs, event.slot) } == true ? ordinal + 1 : 0
            previous = (event.timeMs, event.slot)
            let uuid = Self.eventUUID(subscriber: subscriber, event: event, ordinal: ordinal)
            return emit(
                event.type, subtype: event.subtype, for: subscriber, slot: event.slot, atMs: event.timeMs,
                signing: signing, notificationUUID: uuid, sendAttempt: sendAttempt)
        }
    }

    /// One notification about `slot` of `subscriber`, with the subscription's data as of `atMs`.
    func emit(
        _ type: SimulatedNotificationType, subtype: SimulatedNotificationSubtype?, for subscriber: SimulatedSubscriber,
        slot: Int, atMs: Int64, signing: NotificationSigning, notificationUUID: String,
        sendAttempt: NotificationSendAttemptResult?
    ) -> SimulatedNotification {
        var subscriber = subscriber
        if let setToken = registry.appAccountToken(setForSubscriberID: subscriber.id) {
            subscriber.appAccountToken = setToken
        }
        let app = apps.app(of: subscriber)
        let signed = renderer(app).signedPayload(
            type: type, subtype: subtype, notificationUUID: notificationUUID, subscriber: subscriber, slot: slot,
            signedDateMs: atMs, signing: signing)
        let notification = SimulatedNotification(
            notificationUUID: notificationUUID, type: type, subtype: subtype, signedDateMs: atMs,
            environment: subscriber.environment, subscriberID: subscriber.id,
            originalTransactionID: signed.originalTransactionID, signedPayload: String(decoding: signed.jws, as: UTF8.self),
            bundleID: app.bundleID)
        log.record(notification, attempt: sendAttempt.map { NotificationSendAttempt(attemptDateMs: atMs, result: $0) })
        return notification
    }

    /// A `TEST` notification for `app` (no subscriber).
    func emitTest(
        for app: SimulatedApp, environment: SimulatedEnvironment, atMs: Int64, signing: NotificationSigning,
        notificationUUID: String, sendAttempt: NotificationSendAttemptResult?
    ) -> SimulatedNotification {
        let jws = renderer(app).signedTestPayload(
            notificationUUID: notificationUUID, environment: environment, signedDateMs: atMs, signing: signing)
        let notification = SimulatedNotification(
            notificationUUID: notificationUUID, type: .test, subtype: nil, signedDateMs: atMs, environment: environment,
            subscriberID: nil, originalTransactionID: nil, signedPayload: String(decoding: jws, as: UTF8.self),
            bundleID: app.bundleID)
        log.record(notification, attempt: sendAttempt.map { NotificationSendAttempt(attemptDateMs: atMs, result: $0) })
        return notification
    }

    /// A fresh random UUID, lowercase like Apple's.
    static func randomUUID() -> String {
        UUID().uuidString.lowercased()
    }

    /// The UUID of a scenario event: a function of what happened, so asking for the same span
    /// again (Apple's retry, a backfill overlapping a delivery) yields the same notification.
    static func eventUUID(subscriber: SimulatedSubscriber, event: SubscriptionEvent, ordinal: Int) -> String {
        var hash = FNV1a64()
        hash.add(subscriber.id)
        hash.add(subscriber.environment.rawValue)
        hash.add(Int64(event.slot))
        hash.add(event.timeMs)
        hash.add(event.type.rawValue)
        hash.add(event.subtype?.rawValue ?? "")
        hash.add(Int64(ordinal))
        return ServerAPIIdentifiers.uuid(seed: hash.value)
    }
}
