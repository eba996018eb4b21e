/// One event as a write hands it to the store: everything in its body but `seq` and `position`,
/// which the store assigns inside the same transaction (see docs/webhooks.md, "Order").
public struct EventDraft: Sendable, Equatable {
    /// A lower-case canonical UUID: the body's `id` and the `webhook-id`.
    public var id: String
    public var type: EventType
    public var createdAtMs: Int64
    public var app: String?
    public var environment: String?
    public var userID: String
    /// nil for `user.forgotten`.
    public var originalTransactionID: String?
    public var source: EventSource
    public var runID: Int64?
    public var notificationUUID: String?
    public var before: EventJSON
    public var after: EventJSON
    public var period: EventJSON

    public init(
        id: String, type: EventType, createdAtMs: Int64, app: String?, environment: String?, userID: String,
        originalTransactionID: String?, source: EventSource, runID: Int64?, notificationUUID: String?,
        before: EventJSON = .null, after: EventJSON = .null, period: EventJSON = .null
    ) {
        self.id = id
        self.type = type
        self.createdAtMs = createdAtMs
        self.app = app
        self.environment = environment
        self.userID = userID
        self.originalTransactionID = originalTransactionID
        self.source = source
        self.runID = runID
        self.notificationUUID = notificationUUID
        self.before = before
        self.after = after
        self.period = period
    }

    /// The event a subscription change writes.
    public init(change: SubscriptionChange, origin: EventOrigin, app: String?, id: String, createdAtMs: Int64) {
        let type = EventType(change: change.kind)
        self.init(
            id: id, type: type, createdAtMs: createdAtMs, app: app, environment: change.after.environment.rawValue,
            userID: change.userID, originalTransactionID: change.originalTransactionID, source: origin.source,
            runID: origin.runID, notificationUUID: origin.source == .notification ? origin.notificationUUID : nil,
            before: change.before.map { EventSubscriptionObject.json($0, bundleID: app) } ?? .null,
            after: EventSubscriptionObject.json(change.after, bundleID: app),
            period: type.carriesPeriod ? change.period.map { EventPeriodObject.json($0, bundleID: app) } ?? .null : .null)
    }

    /// `link --move`: the purchase leaves a user who held it (`before` their row; no row after).
    public static func purchaseMoved(
        from holder: StoredSubscription, app: String?, runID: Int64?, id: String, createdAtMs: Int64
    ) -> EventDraft {
        EventDraft(
            id: id, type: .subscriptionOther, createdAtMs: createdAtMs, app: app, environment: holder.environment.rawValue,
            userID: holder.userID, originalTransactionID: holder.originalTransactionID, source: .link, runID: runID,
            notificationUUID: nil, before: EventSubscriptionObject.json(holder, bundleID: app))
    }

    /// `forget`'s one event per app of the user: no subscription fields.
    public static func userForgotten(userID: String, app: String?, id: String, createdAtMs: Int64) -> EventDraft {
        EventDraft(
            id: id, type: .userForgotten, createdAtMs: createdAtMs, app: app, environment: nil, userID: userID,
            originalTransactionID: nil, source: .forget, runID: nil, notificationUUID: nil)
    }

    /// The body's 15 keys in the contract's order. Fixed once written: the store keeps these bytes
    /// and every delivery sends them.
    public func body(seq: Int64?, position: Int64) -> String {
        EventJSON.object([
            ("id", .string(id)), ("type", .string(type.rawValue)), ("created_at", .string(Self.timestamp(createdAtMs))),
            ("app", .optional(app)), ("environment", .optional(environment)), ("user_id", .string(userID)),
            ("original_transaction_id", .optional(originalTransactionID)), ("seq", .optional(seq)),
            ("position", .integer(position)), ("source", .string(source.rawValue)), ("run_id", .optional(runID)),
            ("notification_uuid", .optional(notificationUUID)), ("before", before), ("after", after), ("period", period),
        ]).text
    }

    /// `2026-12-01T03:17:20.123Z`: the report's format with milliseconds.
    public static func timestamp(_ ms: Int64) -> String {
        let seconds = ISO8601.string(fromMilliseconds: ms)
        let fraction = Int((ms % 1000 + 1000) % 1000)
        let digits = String(fraction)
        return String(seconds.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
