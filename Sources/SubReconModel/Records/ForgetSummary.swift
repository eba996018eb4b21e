/// What `subrecon forget` removed for one user, and what it kept under a pseudonym.
public struct ForgetSummary: Sendable, Equatable {
    public var receipts = 0
    public var subscriptions = 0
    public var subscriptionChanges = 0
    public var runItems = 0
    /// Notifications that named the user: kept (Apple's record), the link to the user removed.
    public var notificationLinks = 0
    /// `user` runs that named the user: kept, the name removed.
    public var runs = 0
    /// Billed periods (the ledger): kept with their money, under the pseudonym.
    public var ledgerPeriods = 0
    /// Billed periods another user holds too (a purchase both claimed): removed from this user,
    /// kept once, under the other user.
    public var ledgerPeriodsHeldByOthers = 0
    /// The user's app account tokens.
    public var tokens = 0
    /// The user's events (pending ones never sent); the `user.forgotten` ones written are not counted.
    public var events = 0

    public init() {}

    /// Nothing was stored for the user.
    public var foundNothing: Bool { self == ForgetSummary() }
}
