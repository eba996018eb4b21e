import Foundation
import PostgresNIO
import SubReconModel

extension PostgresStore: RunStore {
    public func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    {
        let (pid, host, claimTimeoutMs) = (Int64(getpid()), ProcessInfo.processInfo.hostName, claimTimeoutMs)
        return try await withTransaction("recording the start of a run") { connection in
            // Runs whose worker stopped sending heartbeats for a whole claim timeout were killed:
            // record them as interrupted (their claims run out at the same time).
            try await connection.run(
                "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE status = 'running' AND heartbeat_at < ?",
                [.integer(nowMs), .integer(nowMs - claimTimeoutMs)])
            guard
                let id = try await connection.integer(
                    """
                    INSERT INTO runs (kind, started_at, status, receipts_total, target_user_id, pid, host, heartbeat_at)
                    VALUES (?, ?, 'running', ?, ?, ?, ?, ?) RETURNING id
                    """,
                    [
                        .text(kind.rawValue), .integer(nowMs), .integer(Int64(receiptsTotal)), SQLArgument(targetUserID),
                        .integer(pid), .text(host), .integer(nowMs),
                    ])
            else { throw StoreError.failed(operation: "recording the start of a run", reason: "no id returned") }
            return id
        }
    }

    public func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    {
        try await withConnection("recording the end of a run") { connection in
            try await connection.run(
                """
                UPDATE runs SET finished_at = ?, status = ?, exit_code = ?, receipts_total = COALESCE(?, receipts_total)
                WHERE id = ?
                """,
                [
                    .integer(nowMs), .text(status.rawValue), .integer(Int64(exitCode)),
                    SQLArgument(receiptsTotal.map(Int64.init)), .integer(id),
                ])
        }
    }

    /// Workers cooperate through claims; the SQLite run lock has no meaning here, so asking for it
    /// always succeeds (the pipeline doesn't ask when `splitsDueReceipts`).
    public func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult {
        .acquired(tookOverFrom: nil)
    }

    public func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool {
        if let runID { try await heartbeat(runID: runID, nowMs: nowMs) }
        return true
    }

    public func releaseRunLock(token: String) async throws(StoreError) {}

    /// The run is alive, and so are this worker's claims: both are renewed together.
    public func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError) {
        // Claims live in the database's clock (see `claimDue`), whatever clock the run's states use.
        let (worker, timeout) = (worker, claimTimeoutMs)
        try await withConnection("renewing the run's claims") { connection in
            try await connection.run("UPDATE runs SET heartbeat_at = ? WHERE id = ?", [.integer(nowMs), .integer(runID)])
            try await connection.run(
                "UPDATE receipts SET claimed_until = \(PostgresSchema.nowMs) + ? WHERE claimed_by = ?",
                [.integer(timeout), .text(worker)])
        }
    }
}
