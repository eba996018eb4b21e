import PostgresNIO

/// A notification's statements, prepared once per connection like the writer's (postgres-nio
/// names them and prepares each on first use): the receiver's hot path is parsed and planned
/// once per connection, not per notification. The SQL is `NotificationSQL`'s (shared with
/// SQLite), numbered; the arguments are bound as `PostgresSQL.query` binds them.
protocol NotificationStatement: PostgresPreparedStatement {
    var arguments: [SQLArgument] { get }
}

extension NotificationStatement {
    func makeBindings() throws -> PostgresBindings { PostgresSQL.bindings(arguments) }
}

extension NotificationStatement where Row == () {
    func decodeRow(_ row: PostgresRow) throws {}
}

/// Two deliveries of one notification take turns on its uuid (a transaction-level lock).
struct LockNotification: NotificationStatement {
    typealias Row = ()
    static let sql = PostgresSQL.numbered("SELECT pg_advisory_xact_lock(hashtextextended(?, 1))")
    let arguments: [SQLArgument]
}

/// The stored row of a notification's uuid: its outcome and user.
struct ExistingNotification: NotificationStatement {
    typealias Row = (String, String?)
    static let sql = PostgresSQL.numbered(NotificationSQL.existing)
    let arguments: [SQLArgument]

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let row = row.makeRandomAccess()
        return (try row["outcome"].decode(String.self), try row["user_id"].decode(String?.self))
    }
}

struct CountNotificationDelivery: NotificationStatement {
    typealias Row = ()
    static let sql = PostgresSQL.numbered(NotificationSQL.countDelivery)
    let arguments: [SQLArgument]
}

struct InsertNotification: NotificationStatement {
    typealias Row = ()
    static let sql = PostgresSQL.numbered(NotificationSQL.insert)
    let arguments: [SQLArgument]
}

struct LinkNotification: NotificationStatement {
    typealias Row = ()
    static let sql = PostgresSQL.numbered(NotificationSQL.link)
    let arguments: [SQLArgument]
}

/// A notification's receipts (`NotificationSQL.receiptsBySubscription`, else
/// `receiptsByTransaction`), ordered by user, with their users locked as `LockUsers` locks them
/// (in key order), in one statement. As with the lookups followed by `LockUsers`, the receipts
/// are found in a snapshot taken before waiting on the locks; what is stored for them is read
/// after (`StoredBatchState.read`). Arguments: the original transaction id, the transaction id
/// (or the original again).
struct LockNotificationTargets: NotificationStatement {
    typealias Row = (Int64, String)
    // Both lookups number their own placeholders: $1 the original transaction id, $2 the transaction id.
    static let sql = """
        WITH by_subscription AS MATERIALIZED (\(PostgresSQL.numbered(NotificationSQL.receiptsBySubscription))),
        found AS MATERIALIZED (
            SELECT receipt_id, user_id FROM by_subscription
            UNION ALL
            SELECT receipt_id, user_id FROM (\(PostgresSQL.numbered(NotificationSQL.receiptsByTransaction))) AS t
            WHERE NOT EXISTS (SELECT 1 FROM by_subscription)),
        locks AS MATERIALIZED (\(LockUsers.locking(usersIn: "found")))
        SELECT receipt_id, user_id FROM found WHERE (SELECT count(*) FROM locks) >= 0 ORDER BY user_id
        """
    let arguments: [SQLArgument]

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let row = row.makeRandomAccess()
        return (try row["receipt_id"].decode(Int64.self), try row["user_id"].decode(String.self))
    }
}
