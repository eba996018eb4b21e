import PostgresNIO
import SubReconModel

// A batch of notifications' statements (`PostgresNotificationBatch`), prepared once per connection
// like the writer's (postgres-nio names them and prepares each on first use). Each covers the
// whole batch through array parameters, so a batch costs the same round trips as one notification.

/// Deliveries of one uuid take turns: a transaction-level lock per uuid, taken in key order (and
/// before any user's lock), so two batches never deadlock.
struct LockNotifications: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = """
        SELECT pg_advisory_xact_lock(key) FROM (
            SELECT DISTINCT hashtextextended(uuid, 1) AS key FROM unnest($1::text[]) AS u(uuid)
            ORDER BY key) AS keys
        """
    let uuids: [String]

    func makeBindings() throws -> PostgresBindings { try PostgresSQL.bindings(uuids) }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// In one statement: the stored rows of the batch's uuids (outcome and user), and the receipts of
/// each notification that may apply (`NotificationSQL.receiptsBySubscription`, else
/// `receiptsByTransaction`), with all their users locked as `LockUsers` locks them (in key order).
/// A statement of its own after `LockNotifications`: under READ COMMITTED a statement that locked
/// and read would read before it waited. As with the lookups followed by `LockUsers`, the
/// receipts are found in a snapshot taken before waiting on the users' locks; what is stored for
/// them is read after (`StoredBatchState.read`). Parameters: the uuids; the positions in the batch
/// of the notifications that may apply, their original transaction ids, their transaction ids (or
/// the original again).
struct ReadNotificationsLockingTargets: PostgresPreparedStatement {
    /// `stored`: uuid, outcome, user; `target`: position, receipt, user.
    typealias Row = (kind: String, uuid: String?, outcome: String?, position: Int64?, receiptID: Int64?, userID: String?)
    static let sql = """
        WITH wanted AS MATERIALIZED (
            SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[]) AS w(position, otid, tid)),
        by_subscription AS MATERIALIZED (
            SELECT w.position, s.receipt_id, s.user_id FROM wanted w
            JOIN subscriptions s ON s.original_transaction_id = w.otid AND s.receipt_id IS NOT NULL),
        by_transaction AS MATERIALIZED (
            SELECT w.position, MIN(r.id) AS receipt_id, r.user_id FROM wanted w
            JOIN receipts r ON r.transaction_id IN (w.otid, w.tid)
            WHERE NOT EXISTS (SELECT 1 FROM by_subscription b WHERE b.position = w.position)
            GROUP BY w.position, r.user_id),
        found AS MATERIALIZED (
            SELECT position, receipt_id, user_id FROM by_subscription
            UNION ALL
            SELECT position, receipt_id, user_id FROM by_transaction),
        locks AS MATERIALIZED (\(LockUsers.locking(usersIn: "found")))
        SELECT 'stored' AS kind, notification_uuid, outcome, NULL::bigint AS position, NULL::bigint AS receipt_id, user_id
        FROM notifications WHERE notification_uuid = ANY($1::text[])
        UNION ALL
        SELECT 'target', NULL, NULL, position, receipt_id, user_id FROM found WHERE (SELECT count(*) FROM locks) >= 0
        ORDER BY 1, 4, 6
        """
    let uuids: [String]
    let positions: [Int64]
    let originalTransactionIDs: [String]
    let transactionIDs: [String]

    func makeBindings() throws -> PostgresBindings {
        try PostgresSQL.bindings(uuids, positions, originalTransactionIDs, transactionIDs)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (kind, uuid, outcome, position, receiptID, userID) = try row.decode(
            (String, String?, String?, Int64?, Int64?, String?).self)
        return (kind, uuid, outcome, position, receiptID, userID)
    }
}

/// A batch's rows for every table they touch that no other of them reads, in one statement of
/// data-modifying CTEs (each runs once, to completion, on the statement's snapshot): subscriptions,
/// new renewal records, receipts, changes and the new notification rows. Cancellations of renewal
/// records follow in a statement of their own, since one may fill a record this one inserts.
struct WriteNotificationRows: PostgresPreparedStatement {
    typealias Row = ()
    static let parts = [
        InsertSubscriptions.sql, InsertRenewals.sql, UpdateReceipts.sql, InsertSubscriptionChanges.sql,
        InsertNotifications.sql,
    ]
    static let sql =
        "WITH "
        + parts.enumerated().map { index, part in
            "written_\(index) AS (\(part.replacingOccurrences(of: "$1::jsonb", with: "$\(index + 1)::jsonb")))"
        }.joined(separator: ",\n") + "\nSELECT 1 WHERE false"
    let subscriptions: JSONRecords
    let renewals: JSONRecords
    let receipts: JSONRecords
    let changes: JSONRecords
    let notifications: JSONRecords

    func makeBindings() throws -> PostgresBindings {
        try PostgresSQL.bindings(subscriptions.json, renewals.json, receipts.json, changes.json, notifications.json)
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// New notification rows (`NotificationSQL.insertArguments`' values, one JSON record each).
struct InsertNotifications: JSONBatchStatement {
    static let columns = [
        "notification_uuid", "notification_type", "subtype", "environment", "signed_date", "original_transaction_id",
        "transaction_id", "user_id", "receipt_id", "outcome", "source", "received_at", "last_received_at",
        "signed_payload", "bundle_id", "app_account_token",
    ]
    static let sql = """
        INSERT INTO notifications (\(columns.joined(separator: ", ")), deliveries)
        SELECT \(columns.joined(separator: ", ")), 1
        FROM jsonb_to_recordset($1::jsonb) AS x(\(JSONRecords.recordType(columns)))
        """
    let json: String
}

/// More deliveries of stored uuids: how many, and when the last arrived.
struct CountNotificationDeliveries: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = """
        UPDATE notifications SET deliveries = deliveries + x.count, last_received_at = x.received_at
        FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS x(uuid, count, received_at)
        WHERE notification_uuid = x.uuid
        """
    let uuids: [String]
    let counts: [Int64]
    let receivedAt: [Int64]

    func makeBindings() throws -> PostgresBindings { try PostgresSQL.bindings(uuids, counts, receivedAt) }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Unmatched notifications that found their receipt (`NotificationSQL.link` for the batch).
struct LinkNotifications: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = """
        UPDATE notifications SET user_id = x.user_id, receipt_id = x.receipt_id, outcome = x.outcome,
            signed_payload = NULL, app_account_token = NULL
        FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS x(uuid, user_id, receipt_id, outcome)
        WHERE notification_uuid = x.uuid
        """
    let uuids: [String]
    let userIDs: [String]
    let receiptIDs: [Int64]
    let outcomes: [String]

    func makeBindings() throws -> PostgresBindings { try PostgresSQL.bindings(uuids, userIDs, receiptIDs, outcomes) }

    func decodeRow(_ row: PostgresRow) throws {}
}
