/// What the commands need from a store, in intent names: SQLite on one machine (`AppDatabase`),
/// PostgreSQL for several workers on several hosts (`PostgresStore`). The run pipeline, import,
/// `user`, status and reports see only this.
///
/// One protocol per area, in `Areas/`; each store implements an area in one file named after it
/// (`SQLite/AppDatabase+Runs.swift` and `PostgreSQL/PostgresStore+Runs.swift` for `RunStore`).
/// A new area is a new protocol there, one file per store, and its name in this list
/// (docs/architecture.md, "The store seam").
public protocol SubscriptionStore:
    RunStore & ClaimStore & ReconciliationStore & ImportStore & IdentityStore & NotificationStore & APIRateStore
        & AppleReportStore & LedgerRefillStore & SnapshotStore & CopyStore & EventStore
{
    /// Where the store is, fit to show (a PostgreSQL URL's password is masked).
    var location: String { get }
    /// Closes connections (PostgreSQL); a no-op on SQLite.
    func close() async
}
