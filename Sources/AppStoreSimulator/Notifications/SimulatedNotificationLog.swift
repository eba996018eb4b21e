import Synchronization

/// One notification in the simulator's log with its delivery attempts: an item of Get
/// Notification History's `notificationHistory`.
public struct NotificationHistoryEntry: Sendable, Hashable {
    public var notification: SimulatedNotification
    /// Oldest first, at most `SimulatedNotificationLog.maxSendAttempts` (Apple's first try and five retries).
    public var sendAttempts: [NotificationSendAttempt]
    /// Order of first recording, to order notifications with the same `signedDate` stably.
    var sequence: Int64

    /// Delivered at least once; Get Notification History's `onlyFailures` keeps the others.
    var wasDelivered: Bool { sendAttempts.contains { $0.result == .success } }
}

/// Every notification the simulator emitted, once per `notificationUUID`, so Get Notification
/// History can serve what Apple would have attempted to send. Emitting a notification with a
/// known UUID again (a redelivery) keeps the first payload and only adds its attempt.
final class SimulatedNotificationLog: Sendable {
    /// Apple tries a V2 notification at most six times (production: once and five retries).
    static let maxSendAttempts = 6

    private struct State {
        var entries: [NotificationHistoryEntry] = []
        var positionByUUID: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Adds `notification` (or, for a known UUID, only `attempt`); no attempt = not tried yet.
    func record(_ notification: SimulatedNotification, attempt: NotificationSendAttempt?) {
        state.withLock { state in
            if let position = state.positionByUUID[notification.notificationUUID] {
                if let attempt { Self.append(attempt, to: &state.entries[position]) }
                return
            }
            var entry = NotificationHistoryEntry(
                notification: notification, sendAttempts: [], sequence: Int64(state.entries.count))
            if let attempt { Self.append(attempt, to: &entry) }
            state.positionByUUID[notification.notificationUUID] = state.entries.count
            state.entries.append(entry)
        }
    }

    /// Adds a delivery attempt to a logged notification; false when the UUID is not in the log.
    func addAttempt(_ attempt: NotificationSendAttempt, notificationUUID: String) -> Bool {
        state.withLock { state in
            guard let position = state.positionByUUID[notificationUUID] else { return false }
            Self.append(attempt, to: &state.entries[position])
            return true
        }
    }

    /// The logged notification with `notificationUUID`, with its attempts so far.
    func entry(notificationUUID: String) -> NotificationHistoryEntry? {
        state.withLock { state in state.positionByUUID[notificationUUID].map { state.entries[$0] } }
    }

    /// The logged notifications `isIncluded` keeps, ordered by `signedDate`, then by first recording.
    func entries(where isIncluded: (NotificationHistoryEntry) -> Bool = { _ in true }) -> [NotificationHistoryEntry] {
        let kept = state.withLock { $0.entries.filter(isIncluded) }
        return kept.sorted { ($0.notification.signedDateMs, $0.sequence) < ($1.notification.signedDateMs, $1.sequence) }
    }

    var count: Int { state.withLock { $0.entries.count } }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    private static func append(_ attempt: NotificationSendAttempt, to entry: inout NotificationHistoryEntry) {
        guard entry.sendAttempts.count < maxSendAttempts else { return }
        entry.sendAttempts.append(attempt)
    }
}
