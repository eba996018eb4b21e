/// The outbox's statements (events, their numbering and their delivery), shared by both stores.
package enum EventSQL {
    /// Adds `?` (the stream's events in this write) to a stream's count; returns the new last `seq`.
    package static let advanceStream = """
        INSERT INTO event_streams (user_id, original_transaction_id, last_seq) VALUES (?, ?, ?)
        ON CONFLICT (user_id, original_transaction_id)
        DO UPDATE SET last_seq = event_streams.last_seq + excluded.last_seq
        RETURNING last_seq
        """

    /// Takes `?` positions; returns the last one taken. Run last before the commit: on PostgreSQL
    /// the row stays locked until then, so positions become visible in commit order.
    package static let allocatePositions = """
        INSERT INTO event_positions (id, last_position) VALUES (1, ?)
        ON CONFLICT (id) DO UPDATE SET last_position = event_positions.last_position + excluded.last_position
        RETURNING last_position
        """

    package static let insertColumns = [
        "position", "event_id", "type", "created_at", "bundle_id", "user_id", "original_transaction_id", "seq", "source",
        "body", "state", "attempts", "next_attempt_at",
    ]

    package static let insert = """
        INSERT INTO events (\(insertColumns.joined(separator: ", ")))
        VALUES (\(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))
        """

    /// The app a receipt names ('' when none).
    package static let receiptApp = "SELECT COALESCE(bundle_id, '') FROM receipts WHERE id = ?"

    /// PostgreSQL: every stream of a batch advanced in one statement (rows as one JSON array).
    package static let advanceStreams = """
        INSERT INTO event_streams (user_id, original_transaction_id, last_seq)
        SELECT user_id, original_transaction_id, last_seq
        FROM jsonb_to_recordset(?::jsonb) AS x(user_id text, original_transaction_id text, last_seq bigint)
        ON CONFLICT (user_id, original_transaction_id)
        DO UPDATE SET last_seq = event_streams.last_seq + excluded.last_seq
        RETURNING user_id, original_transaction_id, last_seq
        """

    /// PostgreSQL: a batch's events in one statement.
    package static let insertAll = """
        INSERT INTO events (\(insertColumns.joined(separator: ", ")))
        SELECT \(insertColumns.joined(separator: ", "))
        FROM jsonb_to_recordset(?::jsonb) AS x(position bigint, event_id text, type text, created_at bigint,
            bundle_id text, user_id text, original_transaction_id text, seq bigint, source text, body text, state text,
            attempts bigint, next_attempt_at bigint)
        """

    /// PostgreSQL: the apps of a batch's receipts ('' when none).
    package static let receiptApps = "SELECT id, COALESCE(bundle_id, '') FROM receipts WHERE id = ANY(?::bigint[])"
}
