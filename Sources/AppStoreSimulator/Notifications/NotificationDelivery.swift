import Synchronization
import SubReconHTTP

/// Sends notifications to the app's notification URL as Apple does (an HTTP POST of
/// `{"signedPayload":"<JWS>"}`), one attempt each, and records each attempt's result in the log
/// that Get Notification History and Get Test Notification Status read.
///
/// The HTTP client (libcurl, so `https://` receivers work as `http://` ones do) is made at the
/// first send, so a simulator that never delivers starts no thread.
final class NotificationDelivery: Sendable {
    /// Where notifications go: the URL the app would configure in App Store Connect.
    let url: String
    /// Longest wait for the receiver's answer.
    let timeout: Duration
    private let log: SimulatedNotificationLog
    private let clock: MillisecondsClock
    /// Told of each attempt's result (`SimulatorOptions.notificationAttemptObserver`).
    private let observer: (@Sendable (SimulatedNotification, NotificationSendAttemptResult, String) -> Void)?
    /// Made at the first send; its thread ends when this object goes.
    private let transport = Mutex<CurlTransport?>(nil)

    init(
        url: String, timeout: Duration, log: SimulatedNotificationLog, clock: @escaping MillisecondsClock,
        observer: (@Sendable (SimulatedNotification, NotificationSendAttemptResult, String) -> Void)? = nil
    ) {
        self.observer = observer
        self.url = url
        self.timeout = timeout
        self.log = log
        self.clock = clock
    }

    /// POSTs `notification` once and records the attempt (dated when it started) in the log.
    @discardableResult
    func deliver(_ notification: SimulatedNotification) async -> NotificationSendAttemptResult {
        let attemptMs = clock()
        let result: NotificationSendAttemptResult
        let detail: String
        do {
            let response = try await client().send(HTTPRequest(
                url: url, headers: [("Content-Type", "application/json")], body: notification.bodyBytes, timeout: timeout))
            result = Self.result(httpStatus: response.status)
            detail = "HTTP \(response.status)"
        } catch {
            result = Self.result(of: error)
            detail = error.description
        }
        observer?(notification, result, detail)
        _ = log.addAttempt(NotificationSendAttempt(attemptDateMs: attemptMs, result: result), notificationUUID: notification.notificationUUID)
        return result
    }

    /// `deliver` without waiting: the request that caused the notification is answered at once,
    /// as Apple answers Request a Test Notification before its POST reaches the receiver.
    func deliverInBackground(_ notification: SimulatedNotification) {
        Task { await deliver(notification) }
    }

    private func client() -> CurlTransport {
        transport.withLock { current in
            if let current { return current }
            let made = CurlTransport(maxConnections: 4, maxResponseBytes: 64 * 1024)
            current = made
            return made
        }
    }

    /// Apple: "HTTP 200, or any HTTP code between 200 and 206" is a successful post; anything else
    /// is retried (production) and recorded as an unsuccessful response code.
    static func result(httpStatus: Int) -> NotificationSendAttemptResult {
        (200...206).contains(httpStatus) ? .success : .unsuccessfulHTTPResponseCode
    }

    /// Apple's names for an exchange that produced no HTTP answer. Apple does not document which
    /// network failure gets which value; these are the simulator's reading: nothing answering
    /// (refused, unreachable, closed before answering) is `NO_RESPONSE`.
    static func result(of error: HTTPTransportError) -> NotificationSendAttemptResult {
        switch error {
        case .timedOut: .timedOut
        case .tlsFailed: .tlsIssue
        case .connectionFailed: .noResponse
        case .responseTooLarge: .invalidResponse
        case .invalidURL, .transportFailed, .shutDown: .other
        }
    }
}
