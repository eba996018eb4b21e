/// One App Store Server Notification V2 the simulator made: the body Apple would POST
/// (`{"signedPayload":"<JWS>"}`) and what it is about, so tests and the CLI need not decode it.
public struct SimulatedNotification: Sendable, Hashable {
    /// `notificationUUID`: the same for every delivery of this notification (the receiver's dedupe key).
    public var notificationUUID: String
    public var type: SimulatedNotificationType
    public var subtype: SimulatedNotificationSubtype?
    /// `signedDate` of the payload: when the event happened.
    public var signedDateMs: Int64
    public var environment: SimulatedEnvironment
    /// The subscriber it is about; nil for a `TEST` notification made without one.
    public var subscriberID: Int64?
    /// The subscription it is about (its `originalTransactionId`); nil when the data carries no
    /// transaction (`TEST`, or a subscription not bought yet at `signedDateMs`).
    public var originalTransactionID: Int64?
    /// The compact JWS whose payload is `responseBodyV2DecodedPayload`.
    public var signedPayload: String
    /// The app it is for (Get Notification History serves each app its own).
    public var bundleID: String

    public init(
        notificationUUID: String, type: SimulatedNotificationType, subtype: SimulatedNotificationSubtype?,
        signedDateMs: Int64, environment: SimulatedEnvironment, subscriberID: Int64?, originalTransactionID: Int64?,
        signedPayload: String, bundleID: String = SimulatedProducts.bundleID
    ) {
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.signedDateMs = signedDateMs
        self.environment = environment
        self.subscriberID = subscriberID
        self.originalTransactionID = originalTransactionID
        self.signedPayload = signedPayload
        self.bundleID = bundleID
    }

    /// The request body Apple POSTs, `{"signedPayload":"<JWS>"}` (one line of `notifications import`).
    public var body: String {
        "{\"signedPayload\":\"" + signedPayload + "\"}"
    }

    /// `body` as bytes.
    public var bodyBytes: [UInt8] { Array(body.utf8) }
}

/// One delivery attempt of a notification, as Get Notification History reports it.
public struct NotificationSendAttempt: Sendable, Hashable {
    public var attemptDateMs: Int64
    public var result: NotificationSendAttemptResult

    public init(attemptDateMs: Int64, result: NotificationSendAttemptResult) {
        self.attemptDateMs = attemptDateMs
        self.result = result
    }
}

/// Apple's `sendAttemptResult` values.
public enum NotificationSendAttemptResult: String, Sendable, Hashable, CaseIterable, Codable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"
}
