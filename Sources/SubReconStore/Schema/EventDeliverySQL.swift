/// The deliverer's statements over `events`, shared by both stores. `apps` is how many bundle IDs
/// the scope names (a `?` each), nil for every app.
package enum EventDeliverySQL {
    /// `AND e.bundle_id IN (?, …)`, or nothing for every app.
    package static func appFilter(_ apps: Int?, alias: String = "e") -> String {
        guard let apps else { return "" }
        guard apps > 0 else { return " AND 1 = 0" }
        return " AND \(alias).bundle_id IN (\(Array(repeating: "?", count: apps).joined(separator: ", ")))"
    }

    /// No earlier event of the same subscription is still pending: order per subscription.
    static let isHead = """
        NOT EXISTS (SELECT 1 FROM events p WHERE p.state = 'pending'
            AND p.user_id = e.user_id AND p.original_transaction_id = e.original_transaction_id AND p.position < e.position)
        """

    /// Parameters: lease token, lease until, [apps…], now (lease), now − first delay, now, limit.
    /// Claims the oldest due heads not leased by anyone (an expired lease is free). PostgreSQL
    /// skips rows another worker is claiming at the same moment (`forUpdate`).
    package static func claim(apps: Int?, forUpdate: Bool) -> String {
        """
        UPDATE events SET lease_token = ?, lease_until = ?
        WHERE position IN (
            SELECT e.position FROM events e
            WHERE e.state = 'pending'\(appFilter(apps))
              AND (e.lease_until IS NULL OR e.lease_until <= ?)
              AND ((e.attempts = 0 AND e.next_attempt_at <= ?) OR (e.attempts > 0 AND e.next_attempt_at <= ?))
              AND \(isHead)
            ORDER BY e.position LIMIT ?\(forUpdate ? " FOR UPDATE SKIP LOCKED" : ""))
        RETURNING position, event_id, bundle_id, body, attempts
        """
    }

    /// Parameters: first delay, [apps…]. When the earliest pending head is due (or its lease
    /// ends); NULL when nothing is pending.
    package static func nextDue(apps: Int?) -> String {
        """
        SELECT MIN(CASE WHEN e.lease_until IS NOT NULL AND e.lease_until > due THEN e.lease_until ELSE due END) FROM (
            SELECT e.lease_until, CASE WHEN e.attempts = 0 THEN e.next_attempt_at + ? ELSE e.next_attempt_at END AS due
            FROM events e WHERE e.state = 'pending'\(appFilter(apps)) AND \(isHead)) e
        """
    }

    /// Parameters: [apps…]. How many events are pending.
    package static func pendingCount(apps: Int?) -> String {
        "SELECT COUNT(*) FROM events e WHERE e.state = 'pending'\(appFilter(apps))"
    }

    /// Parameters: state, attempted at, status, delivered at, next attempt at (NULL: unchanged),
    /// position, lease token. Only while the lease is still this deliverer's.
    package static let settle = """
        UPDATE events SET state = ?, attempts = attempts + 1, last_attempt_at = ?, last_status = ?, delivered_at = ?,
            next_attempt_at = COALESCE(?, next_attempt_at), lease_token = NULL, lease_until = NULL
        WHERE position = ? AND lease_token = ?
        """

    /// PostgreSQL: every result of a round in one statement (rows as a JSON array; then the lease
    /// token), the attempt counters with them.
    package static let settleAll = """
        WITH settled AS (
            UPDATE events e SET state = x.state, attempts = e.attempts + 1, last_attempt_at = x.attempted_at,
                last_status = x.status, delivered_at = x.delivered_at,
                next_attempt_at = COALESCE(x.next_attempt_at, e.next_attempt_at), lease_token = NULL, lease_until = NULL
            FROM jsonb_to_recordset(?::jsonb) AS x(position bigint, state text, attempted_at bigint, status bigint,
                delivered_at bigint, next_attempt_at bigint)
            WHERE e.position = x.position AND e.lease_token = ?
            RETURNING x.state)
        INSERT INTO webhook_attempt_totals (result, attempts)
        SELECT CASE WHEN state = 'delivered' THEN 'delivered' ELSE 'failed' END, COUNT(*) FROM settled GROUP BY 1
        ON CONFLICT (result) DO UPDATE SET attempts = webhook_attempt_totals.attempts + excluded.attempts
        """

    /// PostgreSQL, before the claim, for its transaction only: the claim walks the pending events
    /// in position order and stops at its limit. Planned on a table's statistics from before a
    /// backlog (autovacuum has not analyzed it yet), it read every pending event into a bitmap and
    /// sorted them instead: 57 ms a claim at 20,000 pending, against 0.2 ms.
    package static let orderedClaimPlan =
        "SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)"

    /// PostgreSQL: fresh planner statistics for the outbox (see `refreshEventStatistics`).
    package static let analyzeEvents = "ANALYZE events"

    /// Parameters: result, attempts.
    package static let countAttempts = """
        INSERT INTO webhook_attempt_totals (result, attempts) VALUES (?, ?)
        ON CONFLICT (result) DO UPDATE SET attempts = webhook_attempt_totals.attempts + excluded.attempts
        """

    /// Parameter: lease token. A deliverer stopping gives back what it did not finish.
    package static let releaseLeases = "UPDATE events SET lease_token = NULL, lease_until = NULL WHERE lease_token = ?"

    /// Parameters: now (the fresh schedule's start), then the selection's. Same id, same body.
    package static func replay(byID: Bool, deadOnly: Bool) -> String {
        """
        UPDATE events SET state = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL,
            lease_token = NULL, lease_until = NULL
        WHERE \(byID ? "event_id = ?" : "created_at >= ? AND created_at < ?")\(deadOnly ? " AND state = 'dead'" : "")
        """
    }

    /// Parameters: before, [apps…]. Pending events older than `before` will not be sent.
    package static func skip(apps: Int?) -> String {
        """
        UPDATE events SET state = 'skipped', lease_token = NULL, lease_until = NULL
        WHERE state = 'pending' AND created_at < ?\(appFilter(apps, alias: "events"))
        """
    }

    /// Parameter: before. Retention: delivered, dead and skipped events older than `before` go.
    package static let removeSettled = "DELETE FROM events WHERE state IN ('delivered', 'dead', 'skipped') AND created_at < ?"
}
