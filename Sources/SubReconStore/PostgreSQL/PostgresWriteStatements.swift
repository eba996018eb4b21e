import PostgresNIO
import SubReconModel

/// The batched writer's statements, prepared once per connection (postgres-nio names them and
/// prepares each on first use): the hot path is parsed and planned once, not per batch. Each
/// takes its batch's rows as one JSON array bound as text.
protocol JSONBatchStatement: PostgresPreparedStatement where Row == () {
    var json: String { get }
    init(json: String)
}

extension JSONBatchStatement {
    static var bindingDataTypes: [PostgresDataType] { [.text] }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(json)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}

    /// `INSERT INTO table (columns) SELECT columns FROM jsonb_to_recordset($1::jsonb) … conflict`.
    static func insert(into table: String, _ columns: [String], _ conflict: String) -> String {
        let list = columns.joined(separator: ", ")
        return """
            INSERT INTO \(table) (\(list))
            SELECT \(list) FROM jsonb_to_recordset($1::jsonb) AS x(\(JSONRecords.recordType(columns)))
            \(conflict)
            """
    }
}

struct InsertSubscriptions: JSONBatchStatement {
    static let columns = StoredSubscription.selectedColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    static let sql = insert(into: "subscriptions", columns, SchemaSQL.subscriptionUpsert)
    let json: String
}

struct InsertRenewals: JSONBatchStatement {
    static let columns = RenewalRecord.selectedColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    static let sql = insert(into: "renewals", columns, SchemaSQL.renewalInsertOnce)
    let json: String
}

struct FillRenewalCancellations: JSONBatchStatement {
    static let columns = ["user_id", "period_key", "cancellation_date_ms", "refund_milliunits"]
    static let sql = """
        UPDATE renewals SET cancellation_date_ms = x.cancellation_date_ms, refund_milliunits = x.refund_milliunits
        FROM jsonb_to_recordset($1::jsonb) AS x(\(JSONRecords.recordType(columns)))
        WHERE renewals.user_id = x.user_id AND renewals.period_key = x.period_key
          AND renewals.cancellation_date_ms IS NULL
        """
    let json: String
}

/// Periods whose ledger signed data revised (`SchemaSQL.renewalLedgerRevision`, for a batch): one
/// row per period, applied unless newer signed data is stored.
struct ReviseRenewalLedgers: JSONBatchStatement {
    static let columns = RenewalRecord.ledgerColumns + ["user_id", "period_key"]
    static let sql = """
        UPDATE renewals SET \(RenewalRecord.ledgerColumns.map { "\($0) = x.\($0)" }.joined(separator: ", "))
        FROM jsonb_to_recordset($1::jsonb) AS x(\(JSONRecords.recordType(columns)))
        WHERE renewals.user_id = x.user_id AND renewals.period_key = x.period_key
          AND COALESCE(renewals.ledger_signed_date, -1) <= COALESCE(x.ledger_signed_date, 0)
        """
    let json: String
}

struct UpdateReceipts: JSONBatchStatement {
    static let columns = [
        "id", "receipt_data", "environment", "next_due_at", "last_attempt_at", "last_verified_at", "last_apple_status",
        "verification_state", "consecutive_failures", "last_message", "history_revision", "receipt_sha256",
    ]
    static let sql = """
        UPDATE receipts SET
            receipt_data = COALESCE(x.receipt_data, receipts.receipt_data),
            environment = COALESCE(x.environment, receipts.environment),
            next_due_at = x.next_due_at, last_attempt_at = x.last_attempt_at,
            last_verified_at = COALESCE(x.last_verified_at, receipts.last_verified_at),
            last_apple_status = x.last_apple_status, verification_state = x.verification_state,
            consecutive_failures = x.consecutive_failures, last_message = x.last_message,
            history_revision = COALESCE(x.history_revision, receipts.history_revision),
            receipt_sha256 = COALESCE(x.receipt_sha256, receipts.receipt_sha256)
        FROM jsonb_to_recordset($1::jsonb) AS x(\(JSONRecords.recordType(columns)))
        WHERE receipts.id = x.id
        """
    /// Positions in `columns` of the values a NULL leaves as stored (the `COALESCE`s above).
    static let coalescedColumns = ["receipt_data", "environment", "last_verified_at", "history_revision", "receipt_sha256"]
        .compactMap { columns.firstIndex(of: $0) }
    let json: String
}

struct InsertReceiptVersions: JSONBatchStatement {
    static let columns = ["user_id", "receipt_sha256", "receipt_id", "first_seen_at"]
    static let sql = insert(into: "receipt_versions", columns, "ON CONFLICT (user_id, receipt_sha256) DO NOTHING")
    let json: String
}

struct UpsertRunItems: JSONBatchStatement {
    static let columns = [
        "run_id", "receipt_id", "user_id", "outcome", "apple_status", "environment", "old_status", "new_status",
        "old_expires_date_ms", "new_expires_date_ms", "message", "recorded_at",
    ]
    static let sql = insert(into: "run_items", columns, SchemaSQL.runItemUpsert)
    let json: String
}

struct InsertSubscriptionChanges: JSONBatchStatement {
    static let columns = [
        "run_id", "user_id", "original_transaction_id", "receipt_id", "change", "old_status", "new_status",
        "old_product_id", "new_product_id", "old_expires_date_ms", "new_expires_date_ms", "old_auto_renew_status",
        "new_auto_renew_status", "old_auto_renew_product_id", "new_auto_renew_product_id", "recorded_at",
        "notification_uuid",
    ]
    static let sql = insert(into: "subscription_changes", columns, "")
    let json: String
}

/// The batch's receipts are done with: their claims end with the write, when still this worker's.
struct ReleaseWrittenClaims: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = """
        UPDATE receipts SET claimed_by = NULL, claimed_until = NULL
        WHERE id = ANY($1::bigint[]) AND claimed_by = $2
        """
    let ids: [Int64]
    let worker: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(ids)
        bindings.append(worker)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Writers of the same users take turns (see `PostgresStore.reconcile`).
struct LockUsers: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = locking(usersIn: "unnest($1::text[]) AS u(user_id)")

    /// Locks the users (`user_id`) of `source`, in key order, so two writers never deadlock.
    static func locking(usersIn source: String) -> String {
        """
        SELECT pg_advisory_xact_lock(key) FROM (
            SELECT DISTINCT hashtextextended(user_id, 0) AS key FROM \(source)
            ORDER BY key) AS keys
        """
    }
    let users: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(users)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// `RunCounters` for one batch.
struct AddToRunCounters: PostgresPreparedStatement {
    typealias Row = ()
    static let sql = RunCounters.sql.split(separator: "?", omittingEmptySubsequences: false).enumerated()
        .map { index, part in index == 0 ? String(part) : "$\(index)" + part }.joined()
    let arguments: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments { bindings.append(argument) }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}
