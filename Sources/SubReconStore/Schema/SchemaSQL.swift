import SubReconModel

/// The schema's shared description: the first migrations' SQL as shipped for SQLite, which
/// `PostgresSchema` translates into PostgreSQL's types (`PostgresSchema.translate`), and the
/// conflict rules both stores' writers use. Never edit a shipped migration: add a new one.
package enum SchemaSQL {
    /// Milliseconds since 1970 now, in SQLite (a column default).
    package static let nowMs = "(CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))"

    package static let v1 = """
        CREATE TABLE receipts (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL CHECK (user_id <> ''),
            receipt_data TEXT NOT NULL CHECK (receipt_data <> ''),
            product_id TEXT,
            environment TEXT CHECK (environment IN ('Production', 'Sandbox')),
            imported_at INTEGER NOT NULL DEFAULT \(nowMs),
            next_due_at INTEGER NOT NULL DEFAULT 0,
            last_attempt_at INTEGER,
            last_verified_at INTEGER,
            last_apple_status INTEGER,
            verification_state TEXT NOT NULL DEFAULT 'pending' CHECK (verification_state IN
                ('pending', 'verified', 'flagged', 'invalid', 'account_gone', 'failed')),
            consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
            last_message TEXT
        );
        CREATE INDEX receipts_user ON receipts(user_id);
        CREATE INDEX receipts_due ON receipts(next_due_at, id);

        CREATE TABLE receipt_versions (
            user_id TEXT NOT NULL,
            receipt_sha256 TEXT NOT NULL CHECK (length(receipt_sha256) = 64),
            receipt_id INTEGER NOT NULL REFERENCES receipts(id) ON DELETE CASCADE,
            first_seen_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, receipt_sha256)
        ) WITHOUT ROWID;
        CREATE INDEX receipt_versions_receipt ON receipt_versions(receipt_id);

        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('nightly', 'user')),
            started_at INTEGER NOT NULL,
            finished_at INTEGER,
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'aborted')),
            receipts_total INTEGER NOT NULL DEFAULT 0,
            verified INTEGER NOT NULL DEFAULT 0,
            updated INTEGER NOT NULL DEFAULT 0,
            unchanged INTEGER NOT NULL DEFAULT 0,
            invalid INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            exit_code INTEGER,
            target_user_id TEXT,
            pid INTEGER,
            host TEXT,
            heartbeat_at INTEGER
        );

        CREATE TABLE run_items (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            receipt_id INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN
                ('updated', 'unchanged', 'invalid', 'account_gone', 'failed', 'skipped')),
            apple_status INTEGER,
            environment TEXT,
            old_status TEXT,
            new_status TEXT,
            old_expires_date_ms INTEGER,
            new_expires_date_ms INTEGER,
            message TEXT,
            recorded_at INTEGER NOT NULL,
            PRIMARY KEY (run_id, receipt_id)
        ) WITHOUT ROWID;

        CREATE TABLE subscriptions (
            user_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            receipt_id INTEGER REFERENCES receipts(id) ON DELETE SET NULL,
            product_id TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN
                ('active', 'grace_period', 'billing_retry', 'expired', 'refunded')),
            expires_date_ms INTEGER NOT NULL,
            auto_renew_status INTEGER CHECK (auto_renew_status IN (0, 1)),
            auto_renew_product_id TEXT,
            expiration_intent INTEGER,
            grace_period_expires_date_ms INTEGER,
            is_in_billing_retry INTEGER CHECK (is_in_billing_retry IN (0, 1)),
            cancellation_date_ms INTEGER,
            ownership_type TEXT,
            environment TEXT NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
            last_verified_at INTEGER NOT NULL,
            first_seen_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            flag TEXT,
            PRIMARY KEY (user_id, original_transaction_id)
        ) WITHOUT ROWID;
        CREATE INDEX subscriptions_otid ON subscriptions(original_transaction_id);
        CREATE INDEX subscriptions_receipt ON subscriptions(receipt_id);

        CREATE TABLE renewals (
            user_id TEXT NOT NULL,
            period_key TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            web_order_line_item_id TEXT,
            product_id TEXT NOT NULL,
            purchase_date_ms INTEGER,
            expires_date_ms INTEGER NOT NULL,
            cancellation_date_ms INTEGER,
            is_trial_period INTEGER NOT NULL CHECK (is_trial_period IN (0, 1)),
            is_in_intro_offer_period INTEGER NOT NULL CHECK (is_in_intro_offer_period IN (0, 1)),
            receipt_id INTEGER REFERENCES receipts(id) ON DELETE SET NULL,
            first_seen_run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            first_seen_at INTEGER NOT NULL,
            PRIMARY KEY (user_id, period_key)
        ) WITHOUT ROWID;
        CREATE INDEX renewals_otid ON renewals(original_transaction_id);
        """

    package static let v2RunLock = """
        CREATE TABLE run_lock (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            token TEXT NOT NULL,
            run_id INTEGER,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            acquired_at INTEGER NOT NULL,
            lease_expires_at INTEGER NOT NULL
        );
        CREATE INDEX runs_status ON runs(status);
        """

    package static let v3SubscriptionChanges = """
        CREATE TABLE subscription_changes (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            receipt_id INTEGER,
            change TEXT NOT NULL CHECK (change IN ('new', 'renewed', 'expired', 'refunded',
                'entered_grace_period', 'entered_billing_retry', 'recovered', 'product_changed',
                'auto_renew_changed', 'other')),
            old_status TEXT,
            new_status TEXT NOT NULL,
            old_product_id TEXT,
            new_product_id TEXT NOT NULL,
            old_expires_date_ms INTEGER,
            new_expires_date_ms INTEGER NOT NULL,
            old_auto_renew_status INTEGER CHECK (old_auto_renew_status IN (0, 1)),
            new_auto_renew_status INTEGER CHECK (new_auto_renew_status IN (0, 1)),
            old_auto_renew_product_id TEXT,
            new_auto_renew_product_id TEXT,
            recorded_at INTEGER NOT NULL
        );
        CREATE INDEX subscription_changes_run ON subscription_changes(run_id, user_id, original_transaction_id);
        CREATE INDEX renewals_first_seen ON renewals(first_seen_at);
        """

    /// The App Store Server API's rate budget that several workers share (PostgreSQL): one row per
    /// budget, `next_slot_us` the schedule's next free request slot in microseconds since 1970 on
    /// the database's clock (docs/postgresql.md, "One API rate budget for all workers"). SQLite,
    /// one process at a time, paces
    /// locally and leaves it empty; it has the table so both stores have the same tables.
    package static let v6APIRate = """
        CREATE TABLE api_rate (
            name TEXT NOT NULL PRIMARY KEY,
            next_slot_us INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    /// App Store Server Notifications V2 (`notifications serve|import|backfill`): one row per
    /// `notificationUUID`, however often it arrived (`deliveries`). `user_id` stays NULL while no
    /// stored receipt knows the transaction (`unmatched`); the verified `signed_payload` is kept
    /// only until then, to apply it when a receipt arrives (it is re-verified at that time).
    /// A notification names a subscription by its original transaction id, which the indexes
    /// added here find among subscriptions and imported transaction ids.
    package static let v7Notifications = """
        CREATE TABLE notifications (
            notification_uuid TEXT NOT NULL PRIMARY KEY CHECK (notification_uuid <> ''),
            notification_type TEXT NOT NULL,
            subtype TEXT,
            environment TEXT CHECK (environment IN ('Production', 'Sandbox')),
            signed_date INTEGER NOT NULL,
            original_transaction_id TEXT,
            transaction_id TEXT,
            user_id TEXT,
            receipt_id INTEGER,
            outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'stale', 'unmatched', 'test', 'ignored')),
            source TEXT NOT NULL CHECK (source IN ('receiver', 'import', 'backfill')),
            received_at INTEGER NOT NULL,
            last_received_at INTEGER NOT NULL,
            deliveries INTEGER NOT NULL DEFAULT 1 CHECK (deliveries >= 1),
            signed_payload TEXT
        ) WITHOUT ROWID;
        CREATE INDEX notifications_received ON notifications(received_at, notification_uuid);
        CREATE INDEX notifications_unmatched ON notifications(original_transaction_id) WHERE outcome = 'unmatched';
        CREATE INDEX subscriptions_original_transaction ON subscriptions(original_transaction_id);
        CREATE INDEX receipts_transaction ON receipts(transaction_id) WHERE transaction_id IS NOT NULL;
        """

    /// v7 added an index v1 already had (`subscriptions_otid`, on the same column): every
    /// subscription write maintained both.
    package static let v8DropDuplicateIndex = "DROP INDEX IF EXISTS subscriptions_original_transaction"

    /// The ledger (money for finance): each renewal record gains Apple's price, currency,
    /// storefront, offer, reason, ownership, environment and revocation, the refund computed from
    /// them, whether the transaction was upgraded, and when Apple signed the money data (newer
    /// data wins). Rows stored before take their subscription's environment and ownership; their
    /// amounts stay unknown until a Server API check or a notification fills them in
    /// (`run --refill-ledger`). The money reports walk each subscription's periods in order through
    /// `renewals_ledger`, which covers every column they read: without it each row was a lookup in
    /// the table, slower than the whole walk is now (docs/performance.md, "Money reports over a
    /// large ledger"). It also serves every lookup by original transaction id, as `renewals_otid` did.
    package static let v9Ledger = """
        ALTER TABLE renewals ADD COLUMN price_milliunits INTEGER;
        ALTER TABLE renewals ADD COLUMN currency TEXT;
        ALTER TABLE renewals ADD COLUMN storefront TEXT;
        ALTER TABLE renewals ADD COLUMN offer_type INTEGER;
        ALTER TABLE renewals ADD COLUMN offer_discount_type TEXT;
        ALTER TABLE renewals ADD COLUMN offer_period TEXT;
        ALTER TABLE renewals ADD COLUMN transaction_reason TEXT;
        ALTER TABLE renewals ADD COLUMN ownership_type TEXT;
        ALTER TABLE renewals ADD COLUMN environment TEXT CHECK (environment IN ('Production', 'Sandbox'));
        ALTER TABLE renewals ADD COLUMN revocation_type TEXT;
        ALTER TABLE renewals ADD COLUMN revocation_percentage INTEGER;
        ALTER TABLE renewals ADD COLUMN refund_milliunits INTEGER;
        ALTER TABLE renewals ADD COLUMN is_upgraded INTEGER NOT NULL DEFAULT 0 CHECK (is_upgraded IN (0, 1));
        ALTER TABLE renewals ADD COLUMN ledger_signed_date INTEGER;
        UPDATE renewals SET
            environment = (SELECT s.environment FROM subscriptions s
                WHERE s.user_id = renewals.user_id AND s.original_transaction_id = renewals.original_transaction_id),
            ownership_type = (SELECT s.ownership_type FROM subscriptions s
                WHERE s.user_id = renewals.user_id AND s.original_transaction_id = renewals.original_transaction_id);
        CREATE INDEX renewals_ledger ON renewals(original_transaction_id, purchase_date_ms, period_key, environment,
            product_id, expires_date_ms, cancellation_date_ms, is_upgraded, price_milliunits, currency,
            offer_discount_type, transaction_reason, ownership_type, refund_milliunits);
        DROP INDEX renewals_otid;
        CREATE TABLE ledger_refills (
            id INTEGER PRIMARY KEY,
            started_at INTEGER NOT NULL,
            receipts_marked INTEGER NOT NULL,
            finished_at INTEGER
        )
        """

    /// Apple's own record (`apple-reports fetch|import`): one row per Pacific-time day whose Summary
    /// Sales Report is stored, and that report's rows as Apple wrote them (money in signed
    /// milliunits: refunds are negative). A day is replaced whole when Apple reissues it. The
    /// parity report needs the ledger's storefront and revocation type too: `renewals_ledger` is
    /// rebuilt with them, so its walk stays index-only.
    package static let v10AppleReports = """
        CREATE TABLE apple_report_days (
            day TEXT PRIMARY KEY CHECK (length(day) = 10),
            vendor_number TEXT NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('fetch', 'import')),
            file_name TEXT,
            report_version TEXT,
            sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
            row_count INTEGER NOT NULL CHECK (row_count >= 0),
            no_sales INTEGER NOT NULL DEFAULT 0 CHECK (no_sales IN (0, 1)),
            stored_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE apple_report_rows (
            day TEXT NOT NULL REFERENCES apple_report_days(day),
            line INTEGER NOT NULL,
            product_id TEXT NOT NULL,
            product_type TEXT NOT NULL,
            units INTEGER NOT NULL,
            customer_price_milliunits INTEGER NOT NULL,
            currency TEXT NOT NULL,
            country TEXT NOT NULL,
            subscription TEXT,
            period TEXT,
            proceeds_milliunits INTEGER,
            order_type TEXT,
            PRIMARY KEY (day, line)
        ) WITHOUT ROWID;
        DROP INDEX renewals_ledger;
        CREATE INDEX renewals_ledger ON renewals(original_transaction_id, purchase_date_ms, period_key, environment,
            product_id, expires_date_ms, cancellation_date_ms, is_upgraded, price_milliunits, currency,
            offer_discount_type, transaction_reason, ownership_type, refund_milliunits, storefront, revocation_type)
        """

    /// A day of Apple's report goes whole: its rows, then the day (the rows refer to it).
    package static let appleReportRowsDelete = "DELETE FROM apple_report_rows WHERE day = ?"
    package static let appleReportDayDelete = "DELETE FROM apple_report_days WHERE day = ?"
    package static let appleReportDayInsert = """
        INSERT INTO apple_report_days (day, vendor_number, source, file_name, report_version, sha256, row_count, no_sales,
            stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    package static let appleReportRowColumns = [
        "day", "line", "product_id", "product_type", "units", "customer_price_milliunits", "currency", "country",
        "subscription", "period", "proceeds_milliunits", "order_type",
    ]
    /// Several apps in one deployment: each receipt names its app (nullable: empty means the only
    /// app, as every receipt stored before). Each app's run walks its own due receipts in order,
    /// through `receipts_app_due`. A notification records the app its verified payload named. A
    /// billed period keeps its app itself only once its receipt is gone (`forget`).
    package static let v11Apps = """
        ALTER TABLE receipts ADD COLUMN bundle_id TEXT CHECK (bundle_id <> '');
        CREATE INDEX receipts_app_due ON receipts(bundle_id, next_due_at, id);
        ALTER TABLE notifications ADD COLUMN bundle_id TEXT CHECK (bundle_id <> '');
        ALTER TABLE renewals ADD COLUMN bundle_id TEXT CHECK (bundle_id <> '');
        CREATE INDEX renewals_app ON renewals(bundle_id) WHERE bundle_id IS NOT NULL
        """

    /// Who a purchase belongs to: the tokens an app server handed its app before a purchase
    /// (`app_account_token` of an import, or the one `subrecon link` set at Apple), each one user's.
    package static let v12AppAccountTokens = """
        CREATE TABLE app_account_tokens (
            app_account_token TEXT PRIMARY KEY CHECK (length(app_account_token) = 36),
            user_id TEXT NOT NULL CHECK (user_id <> ''),
            bundle_id TEXT CHECK (bundle_id <> ''),
            registered_at INTEGER NOT NULL
        );
        CREATE INDEX app_account_tokens_user ON app_account_tokens(user_id)
        """

    /// The app download a subscription's purchase belongs to (`appTransactionId`), where Apple sends it.
    package static let v13AppTransactionID = "ALTER TABLE subscriptions ADD COLUMN app_transaction_id TEXT"

    /// The `appAccountToken` of an unmatched notification's transaction, kept while it is unmatched
    /// (like its signed payload): a token registered later links it to that token's user.
    package static let v14NotificationTokens = """
        ALTER TABLE notifications ADD COLUMN app_account_token TEXT CHECK (length(app_account_token) = 36)
        """

    /// A run counts `account_gone` (21010, the Server API's account-gone answers) and `skipped`
    /// (not verified because Apple stopped the run) apart, as its summary line does: `invalid`
    /// no longer includes 21010. Runs recorded before get both from their run items (a forgotten
    /// user's items are gone, so a few old runs may count those under `invalid` still).
    package static let v15RunOutcomes = """
        ALTER TABLE runs ADD COLUMN account_gone INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0;
        UPDATE runs SET
            account_gone = (SELECT COUNT(*) FROM run_items i WHERE i.run_id = runs.id AND i.outcome = 'account_gone'),
            skipped = (SELECT COUNT(*) FROM run_items i WHERE i.run_id = runs.id AND i.outcome = 'skipped');
        UPDATE runs SET invalid = CASE WHEN invalid >= account_gone THEN invalid - account_gone ELSE 0 END
            WHERE account_gone > 0
        """

    /// Events (the outbox): one row per event, written in the transaction of the change it
    /// reports, with its body fixed; `event_streams` numbers each subscription's events (`seq`,
    /// kept when old events are removed; a subscription is a (user, original transaction): its
    /// app follows from the original transaction, whichever write named it), `event_positions` hands out `position`s. Its one row is
    /// updated just before the writing transaction commits, so on PostgreSQL the row lock orders
    /// writers: a position is never visible before a smaller one that will commit (docs/webhooks.md).
    /// `original_transaction_id` and `bundle_id` are '' where the event has none.
    /// `next_attempt_at`: before the first attempt, when the schedule's first delay starts
    /// counting (creation or replay); afterwards, when the next attempt is due.
    package static let v16Events = """
        CREATE TABLE events (
            position INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            bundle_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            seq INTEGER,
            source TEXT NOT NULL,
            body TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead', 'skipped')),
            attempts INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            last_attempt_at INTEGER,
            last_status INTEGER,
            delivered_at INTEGER,
            lease_token TEXT,
            lease_until INTEGER
        );
        CREATE INDEX events_pending ON events(user_id, original_transaction_id, position) WHERE state = 'pending';
        CREATE INDEX events_pending_position ON events(position) WHERE state = 'pending';
        CREATE INDEX events_dead ON events(bundle_id) WHERE state = 'dead';
        CREATE INDEX events_created ON events(created_at);
        CREATE INDEX events_user ON events(user_id);
        CREATE TABLE event_streams (
            user_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            last_seq INTEGER NOT NULL,
            PRIMARY KEY (user_id, original_transaction_id)
        ) WITHOUT ROWID;
        CREATE TABLE event_positions (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            last_position INTEGER NOT NULL
        );
        CREATE TABLE webhook_attempt_totals (
            result TEXT NOT NULL PRIMARY KEY,
            attempts INTEGER NOT NULL
        ) WITHOUT ROWID
        """

    /// What was stored for a day before (its digest tells a reissue from the same file again).
    package static let appleReportDaySHA = "SELECT sha256 FROM apple_report_days WHERE day = ?"
    /// The stored days in `[since, until)` (text dates compare as dates).
    package static let appleReportDays = """
        SELECT day, source, sha256, row_count, no_sales, stored_at FROM apple_report_days
        WHERE day >= ? AND day < ? ORDER BY day
        """
    /// The stored report rows of `[since, until)`, by day and Apple's line order.
    package static let appleReportRows = """
        SELECT day, product_id, product_type, units, customer_price_milliunits, currency, country FROM apple_report_rows
        WHERE day >= ? AND day < ? ORDER BY day, line
        """

    /// `run --refill-ledger`, started: every receipt reads its whole history again (its stored
    /// revision forgotten) and is due now; one row records that a refill is under way, so a run
    /// killed half-way resumes with the receipts it had not reached instead of starting over.
    package static let ledgerRefillMark = """
        UPDATE receipts SET history_revision = NULL, next_due_at = 0
        """
    package static let ledgerRefillUnfinished = "SELECT id, receipts_marked FROM ledger_refills WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1"
    package static let ledgerRefillInsert = "INSERT INTO ledger_refills (started_at, receipts_marked) VALUES (?, ?)"
    package static let ledgerRefillFinish = "UPDATE ledger_refills SET finished_at = ? WHERE finished_at IS NULL"

    /// v7's `subscription_changes` on SQLite, which cannot relax NOT NULL in place: v3's table
    /// under a new name, `run_id` optional, and the notification's uuid for changes without a run.
    package static let v7SubscriptionChangesTable: String = {
        let create = v3SubscriptionChanges[..<v3SubscriptionChanges.range(of: "\n);")!.upperBound]
        return String(create)
            .replacingOccurrences(of: "CREATE TABLE subscription_changes (", with: "CREATE TABLE subscription_changes_v7 (")
            .replacingOccurrences(of: "run_id INTEGER NOT NULL REFERENCES", with: "run_id INTEGER REFERENCES")
            .replacingOccurrences(
                of: "recorded_at INTEGER NOT NULL\n);",
                with: """
                    recorded_at INTEGER NOT NULL,
                        notification_uuid TEXT,
                        CHECK (run_id IS NOT NULL OR notification_uuid IS NOT NULL)
                    );
                    """)
    }()

    /// The columns of `subscription_changes` a notification's change fills (v7 on SQLite rebuilds
    /// the table, which cannot relax NOT NULL in place; PostgreSQL alters it).
    package static let subscriptionChangesV7Columns = """
        id, run_id, user_id, original_transaction_id, receipt_id, change, old_status, new_status, old_product_id,
        new_product_id, old_expires_date_ms, new_expires_date_ms, old_auto_renew_status, new_auto_renew_status,
        old_auto_renew_product_id, new_auto_renew_product_id, recorded_at
        """

    /// A subscription row replaces what was stored for its (user, original transaction).
    package static let subscriptionUpsert = """
        ON CONFLICT (user_id, original_transaction_id) DO UPDATE SET
            receipt_id = excluded.receipt_id, product_id = excluded.product_id, status = excluded.status,
            expires_date_ms = excluded.expires_date_ms, auto_renew_status = excluded.auto_renew_status,
            auto_renew_product_id = excluded.auto_renew_product_id,
            expiration_intent = excluded.expiration_intent,
            grace_period_expires_date_ms = excluded.grace_period_expires_date_ms,
            is_in_billing_retry = excluded.is_in_billing_retry,
            cancellation_date_ms = excluded.cancellation_date_ms, ownership_type = excluded.ownership_type,
            environment = excluded.environment, last_verified_at = excluded.last_verified_at,
            updated_at = excluded.updated_at, flag = excluded.flag,
            latest_transaction_id = excluded.latest_transaction_id,
            app_account_token = excluded.app_account_token, app_transaction_id = excluded.app_transaction_id
        """

    /// A period's ledger replaced by signed data, unless newer signed data is stored: parameters
    /// are `RenewalRecord.ledgerColumns`' values, then the user, the period key and the new data's
    /// signed date.
    package static let renewalLedgerRevision = """
        UPDATE renewals SET \(RenewalRecord.ledgerColumns.map { "\($0) = ?" }.joined(separator: ", "))
        WHERE user_id = ? AND period_key = ? AND COALESCE(ledger_signed_date, -1) <= COALESCE(?, 0)
        """

    /// The money reports' walk of the ledger (`SnapshotQuerying.forEachLedgerRow`): `renewals_ledger`
    /// covers it, in its order. Rows without an environment (stored before v9, never matched to a
    /// subscription) are Production's, as `LedgerEntry.counts(in:)` reads them.
    package static let ledgerWalk = """
        SELECT original_transaction_id, period_key, product_id, purchase_date_ms, expires_date_ms,
               cancellation_date_ms, is_upgraded, price_milliunits, currency, offer_discount_type,
               transaction_reason, ownership_type, environment, refund_milliunits
        FROM renewals WHERE COALESCE(environment, 'Production') = ?
        ORDER BY original_transaction_id, purchase_date_ms NULLS FIRST, period_key
        """
    /// `ledgerWalk` with the storefront and revocation type (`report apple-parity`).
    package static let ledgerWalkWithParityColumns = ledgerWalk.replacingOccurrences(
        of: "environment, refund_milliunits\n", with: "environment, refund_milliunits, storefront, revocation_type\n")

    /// A period is stored once, whoever saw it first.
    package static let renewalInsertOnce = "ON CONFLICT (user_id, period_key) DO NOTHING"

    /// A receipt answered twice in one run (a retry) keeps its first old values.
    package static let runItemUpsert = """
        ON CONFLICT (run_id, receipt_id) DO UPDATE SET outcome = excluded.outcome,
            apple_status = excluded.apple_status, environment = excluded.environment,
            new_status = excluded.new_status, new_expires_date_ms = excluded.new_expires_date_ms,
            message = excluded.message, recorded_at = excluded.recorded_at
        """
}
