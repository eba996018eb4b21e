/// Where a write's events come from, handed to the store with the write: the body's `source`,
/// `run_id` and `notification_uuid`, and the app to name when the receipt itself names none (a
/// single-app deployment's receipts may carry no bundle ID).
public struct EventOrigin: Sendable, Equatable {
    public var source: EventSource
    public var runID: Int64?
    public var notificationUUID: String?
    public var defaultApp: String?

    public init(source: EventSource, runID: Int64? = nil, notificationUUID: String? = nil, defaultApp: String? = nil) {
        self.source = source
        self.runID = runID
        self.notificationUUID = notificationUUID
        self.defaultApp = defaultApp
    }
}
