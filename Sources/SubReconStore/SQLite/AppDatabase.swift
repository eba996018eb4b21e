import Foundation
import GRDB
import SubReconModel

/// The SQLite database: schema (versioned migrations, constraints in SQL) and the connection.
/// Every write goes through one `DatabasePool` writer; readers (reports) never block it (WAL).
public struct AppDatabase: Sendable, SubscriptionStore {
    public let writer: any DatabaseWriter
    public let path: String
    /// Runs the WAL's checkpoints off the writer (`open(path:checkpointsOffTheWriter:)`).
    package let checkpointer: WALCheckpointer?

    public var location: String { path }
    public func close() async { await checkpointer?.stop() }

    /// Opens (creating with mode 0600 unless not `createIfMissing`, and migrating if needed) the
    /// database at `path`. With `checkpointsOffTheWriter`, no commit checkpoints the WAL: a
    /// `WALCheckpointer` does, on a connection of its own, until `close()`.
    public static func open(path: String, createIfMissing: Bool = true, checkpointsOffTheWriter: Bool = false)
        throws(StoreError) -> AppDatabase
    {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .cannotOpen(path: path, reason: "its folder \(directory) does not exist")
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard createIfMissing else { throw .cannotOpen(path: path, reason: "it does not exist") }
            // Created by us first so it never exists with a wider mode: receipts are personal data.
            let fd = Foundation.open(path, O_CREAT | O_WRONLY | O_EXCL, 0o600)
            if fd >= 0 { try? FileHandle(fileDescriptor: fd).close() }
        }
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.prepareDatabase { db in
            // WAL + NORMAL survives a killed process with every committed transaction intact
            // (only a power loss can drop the last commits, which are then verified again).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if !db.configuration.readonly {
                // The one writer: a 16 MB page cache keeps the indexes a run updates in memory
                // (the 2 MB default re-read them from the OS per receipt), and a WAL checkpoint every
                // 4,000 pages rather than 1,000 writes hot pages back less often. Readers keep the
                // default: they stream receipts once, and memory stays flat in the table's size.
                try db.execute(sql: "PRAGMA cache_size = -16384")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 4000")
            }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            try migrator.migrate(pool)
            return AppDatabase(
                writer: pool, path: path, checkpointer: checkpointsOffTheWriter ? try WALCheckpointer(path: path) : nil)
        } catch {
            throw .cannotOpen(path: path, reason: StoreError.reason(error))
        }
    }

    /// All schema changes, in order. Never edit a shipped migration: add a new one.
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: SchemaSQL.v1)
        }
        migrator.registerMigration("v2-run-lock") { db in
            // One row at most: the holder of the nightly run lock, as a renewable lease.
            try db.execute(sql: SchemaSQL.v2RunLock)
        }
        migrator.registerMigration("v3-subscription-changes") { db in
            // Every subscription a run changed, old and new values side by side (`report changes`).
            // run_items keeps only a receipt's headline subscription; this keeps all of them.
            // A rowid table: the same subscription may legitimately change twice in one run (two
            // receipts of one user naming it), and both changes are kept.
            try db.execute(sql: SchemaSQL.v3SubscriptionChanges)
        }
        migrator.registerMigration("v4-server-api") { db in
            // The App Store Server API. `receipts` is rebuilt (SQLite cannot relax NOT NULL in
            // place): a StoreKit 2 app may import a transaction id without receipt data, so a row
            // needs one of the two; `history_revision` is the customer's transaction-history
            // revision reached. Subscriptions remember their newest transaction id (whether the
            // history must be read) and the app's account token (`report subscriptions`).
            // Foreign keys are off during migrations (GRDB checks them at the end), so the
            // tables referring to `receipts` keep their rows and refer to the new table.
            let columns = """
                id, user_id, receipt_data, product_id, environment, imported_at, next_due_at, last_attempt_at,
                last_verified_at, last_apple_status, verification_state, consecutive_failures, last_message
                """
            try db.execute(sql: """
                CREATE TABLE receipts_v4 (
                    id INTEGER PRIMARY KEY,
                    user_id TEXT NOT NULL CHECK (user_id <> ''),
                    receipt_data TEXT CHECK (receipt_data <> ''),
                    product_id TEXT,
                    environment TEXT CHECK (environment IN ('Production', 'Sandbox')),
                    imported_at INTEGER NOT NULL DEFAULT \(SchemaSQL.nowMs),
                    next_due_at INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at INTEGER,
                    last_verified_at INTEGER,
                    last_apple_status INTEGER,
                    verification_state TEXT NOT NULL DEFAULT 'pending' CHECK (verification_state IN
                        ('pending', 'verified', 'flagged', 'invalid', 'account_gone', 'failed')),
                    consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
                    last_message TEXT,
                    transaction_id TEXT CHECK (transaction_id <> ''),
                    history_revision TEXT,
                    CHECK (receipt_data IS NOT NULL OR transaction_id IS NOT NULL)
                );
                INSERT INTO receipts_v4 (\(columns)) SELECT \(columns) FROM receipts;
                DROP TABLE receipts;
                ALTER TABLE receipts_v4 RENAME TO receipts;
                CREATE INDEX receipts_user ON receipts(user_id);
                CREATE INDEX receipts_due ON receipts(next_due_at, id);
                ALTER TABLE subscriptions ADD COLUMN latest_transaction_id TEXT;
                ALTER TABLE subscriptions ADD COLUMN app_account_token TEXT;
                """)
        }
        migrator.registerMigration("v5-claims") { db in
            // The columns PostgreSQL's workers claim receipts with (unused on SQLite, where one run
            // at a time holds the run lock; kept so both stores have the same tables and a copy
            // moves either way), and the stored digest of each receipt's data.
            try db.execute(sql: """
                ALTER TABLE receipts ADD COLUMN receipt_sha256 TEXT CHECK (length(receipt_sha256) = 64);
                ALTER TABLE receipts ADD COLUMN claimed_by TEXT;
                ALTER TABLE receipts ADD COLUMN claimed_until INTEGER;
                """)
            let update = try db.makeStatement(sql: "UPDATE receipts SET receipt_sha256 = ? WHERE id = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, receipt_data FROM receipts WHERE receipt_data IS NOT NULL")
            var digests: [(Int64, String)] = []
            while let row = try rows.next() {
                digests.append((row["id"], ReceiptFingerprint.sha256Hex(row["receipt_data"] as String)))
            }
            for (id, digest) in digests { try update.execute(arguments: [digest, id]) }
        }
        migrator.registerMigration("v6-api-rate") { db in
            // The Server API rate budget PostgreSQL's workers share; unused on SQLite (see SchemaSQL).
            try db.execute(sql: SchemaSQL.v6APIRate)
        }
        migrator.registerMigration("v7-notifications") { db in
            // Notifications V2, and changes made by a notification rather than a run: run_id
            // becomes optional and the notification's uuid is recorded instead.
            let columns = SchemaSQL.subscriptionChangesV7Columns
            try db.execute(sql: SchemaSQL.v7Notifications)
            try db.execute(sql: """
                \(SchemaSQL.v7SubscriptionChangesTable)
                INSERT INTO subscription_changes_v7 (\(columns)) SELECT \(columns) FROM subscription_changes;
                DROP TABLE subscription_changes;
                ALTER TABLE subscription_changes_v7 RENAME TO subscription_changes;
                CREATE INDEX subscription_changes_run ON subscription_changes(run_id, user_id, original_transaction_id);
                CREATE INDEX subscription_changes_notification ON subscription_changes(notification_uuid)
                    WHERE notification_uuid IS NOT NULL;
                """)
        }
        migrator.registerMigration("v8-write-costs") { db in
            // PostgreSQL's v8 also stops compressing the base64 columns; SQLite never compresses.
            try db.execute(sql: SchemaSQL.v8DropDuplicateIndex)
        }
        migrator.registerMigration("v9-ledger") { db in
            try db.execute(sql: SchemaSQL.v9Ledger)
        }
        migrator.registerMigration("v10-apple-reports") { db in
            try db.execute(sql: SchemaSQL.v10AppleReports)
        }
        migrator.registerMigration("v11-apps") { db in
            try db.execute(sql: SchemaSQL.v11Apps)
        }
        migrator.registerMigration("v12-app-account-tokens") { db in
            try db.execute(sql: SchemaSQL.v12AppAccountTokens)
        }
        migrator.registerMigration("v13-app-transaction-id") { db in
            try db.execute(sql: SchemaSQL.v13AppTransactionID)
        }
        migrator.registerMigration("v14-notification-tokens") { db in
            try db.execute(sql: SchemaSQL.v14NotificationTokens)
        }
        migrator.registerMigration("v15-run-outcomes") { db in
            try db.execute(sql: SchemaSQL.v15RunOutcomes)
        }
        migrator.registerMigration("v16-events") { db in
            try db.execute(sql: SchemaSQL.v16Events)
        }
        return migrator
    }
}

/// Error wrapping at the boundary: GRDB's errors come out as `StoreError`, naming the operation.
extension AppDatabase {
    package func read<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.read(body) } catch { throw Self.wrap(error, operation) }
    }

    package func write<T: Sendable>(_ operation: String, _ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do { return try await writer.write(body) } catch { throw Self.wrap(error, operation) }
    }

    package static func wrap(_ error: any Error, _ operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        return .failed(operation: operation, reason: StoreError.reason(error))
    }
}
