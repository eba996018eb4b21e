/// An event claimed for delivery: its body as written, and how many attempts it had.
public struct DeliverableEvent: Sendable, Equatable {
    public var position: Int64
    public var eventID: String
    /// '' when the event names no app.
    public var app: String
    public var body: String
    public var attempts: Int

    public init(position: Int64, eventID: String, app: String, body: String, attempts: Int) {
        self.position = position
        self.eventID = eventID
        self.app = app
        self.body = body
        self.attempts = attempts
    }
}
