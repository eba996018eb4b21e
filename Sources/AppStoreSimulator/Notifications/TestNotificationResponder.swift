/// Request a Test Notification and Get Test Notification Status. The bearer check, the rate
/// limit and the method rule are the router's, as for the other Server API endpoints.
///
/// - `POST /inApps/v1/notifications/test`: without a notification URL (`SimulatorOptions.notificationURL`)
///   → 404 `4040007`, as Apple answers an app with no URL configured for the environment; else a
///   `TEST` notification is made for the environment asked, logged (Get Notification History
///   lists it), sent to the URL in the background (one attempt, recorded with Apple's
///   `sendAttemptResult`), and the answer is 200 `{"testNotificationToken":"<uuid>_<ms>"}`.
/// - `GET /inApps/v1/notifications/test/{token}`: a token not of Apple's shape → 400 `4000020`;
///   one the simulator did not make for this environment, or whose attempt has not finished yet
///   → 404 `4040008` (Apple: the notification does not exist or its result is not available
///   yet); else 200 `CheckTestNotificationResponse` `{"signedPayload":…,"sendAttempts":[…]}`
///   (Apple's model has no `firstSendAttemptResult`; that field belongs to notification history items).
struct TestNotificationResponder: Sendable {
    let emitter: NotificationEmitter
    /// Nil when no notification URL is configured.
    let delivery: NotificationDelivery?

    static let urlNotFound = ServerAPIResponder.error(
        404, 4_040_007,
        "No App Store Server Notification URL found for provided app. Check that a URL is configured in App Store Connect for this environment.")
    static let invalidToken = ServerAPIResponder.error(400, 4_000_020, "Invalid request. The test notification token is invalid.")
    static let notFound = ServerAPIResponder.error(
        404, 4_040_008, "Either the test notification doesn't exist, or the result isn't available yet.")

    /// The answer for `app` (the app whose bearer token asked): its own `TEST` notifications only.
    func respond(
        to route: ServerAPIRoute, app: SimulatedApp, nowMs: Int64, variant: SignedDataVariant = .valid
    ) -> SimulatedHTTPResponse {
        route.endpoint == .testNotification
            ? request(app: app, environment: route.environment, nowMs: nowMs, variant: variant)
            : status(token: route.parameter, app: app, environment: route.environment)
    }

    /// A trust-failure fault signs the notification with the fault's chain (or bundle id), so a
    /// receiver test can watch its verifier refuse a `TEST` too.
    private func request(
        app: SimulatedApp, environment: SimulatedEnvironment, nowMs: Int64, variant: SignedDataVariant
    ) -> SimulatedHTTPResponse {
        guard let delivery else { return Self.urlNotFound }
        let notification = emitter.emitTest(
            for: app, environment: environment, atMs: nowMs,
            signing: NotificationSigning(chain: variant.chain, bundleID: variant.bundleID),
            notificationUUID: NotificationEmitter.randomUUID(), sendAttempt: nil)
        delivery.deliverInBackground(notification)
        var json = JSONByteWriter(capacity: 96)
        json.beginObject()
        json.field("testNotificationToken", TestNotificationToken(notificationUUID: notification.notificationUUID, requestedMs: nowMs).text)
        json.endObject()
        return SimulatedHTTPResponse(httpStatus: 200, headers: ServerAPIResponder.jsonHeaders, body: json.bytes, appleStatus: nil)
    }

    private func status(token text: Substring, app: SimulatedApp, environment: SimulatedEnvironment) -> SimulatedHTTPResponse {
        guard let token = TestNotificationToken(text: text) else { return Self.invalidToken }
        guard let entry = emitter.log.entry(notificationUUID: token.notificationUUID),
              entry.notification.type == .test, entry.notification.subscriberID == nil,
              entry.notification.bundleID == app.bundleID,
              entry.notification.environment == environment, entry.notification.signedDateMs == token.requestedMs,
              !entry.sendAttempts.isEmpty
        else { return Self.notFound }
        var json = JSONByteWriter(capacity: 4096)
        json.beginObject()
        json.key("signedPayload")
        json.unescapedString { $0.append(contentsOf: entry.notification.signedPayload.utf8) }
        NotificationHistoryResponder.writeSendAttempts(entry.sendAttempts, to: &json)
        json.endObject()
        return SimulatedHTTPResponse(httpStatus: 200, headers: ServerAPIResponder.jsonHeaders, body: json.bytes, appleStatus: nil)
    }
}
