/// A row of `runs` as `report runs`, `subrecon status` and the dashboard read it.
public struct RunRecord: Sendable, Equatable {
    public var id: Int64
    public var kind: String
    public var startedAtMs: Int64
    /// Nil while the run is going (or when it died without finishing).
    public var finishedAtMs: Int64?
    public var status: String
    public var receiptsTotal: Int64
    public var verified: Int64
    public var updated: Int64
    public var unchanged: Int64
    public var invalid: Int64
    public var accountGone: Int64
    public var failed: Int64
    public var skipped: Int64
    public var exitCode: Int64?
    /// The process that ran it (several workers on PostgreSQL each record their own run).
    public var host: String?
    public var pid: Int64?

    /// Reads `StatusSQL.runColumns` (every one NOT NULL but `finished_at`, `exit_code`, `host`, `pid`).
    init(_ row: any QueryRow) throws {
        id = try row.requiredInteger("id")
        kind = try row.requiredText("kind")
        startedAtMs = try row.requiredInteger("started_at")
        finishedAtMs = try row.integer("finished_at")
        status = try row.requiredText("status")
        receiptsTotal = try row.requiredInteger("receipts_total")
        verified = try row.requiredInteger("verified")
        updated = try row.requiredInteger("updated")
        unchanged = try row.requiredInteger("unchanged")
        invalid = try row.requiredInteger("invalid")
        accountGone = try row.requiredInteger("account_gone")
        failed = try row.requiredInteger("failed")
        skipped = try row.requiredInteger("skipped")
        exitCode = try row.integer("exit_code")
        host = try row.text("host")
        pid = try row.integer("pid")
    }
}
