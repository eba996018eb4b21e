import Foundation
import GRDB
import SubReconModel

extension AppDatabase: RunStore {
    public func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    {
        try await write("recording the start of a run") { db in
            try db.execute(
                sql: """
                    INSERT INTO runs (kind, started_at, status, receipts_total, target_user_id, pid, host, heartbeat_at)
                    VALUES (?, ?, 'running', ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    kind.rawValue, nowMs, receiptsTotal, targetUserID, Int(getpid()),
                    ProcessInfo.processInfo.hostName, nowMs,
                ])
            return db.lastInsertedRowID
        }
    }

    public func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    {
        try await write("recording the end of a run") { db in
            try db.execute(
                sql: """
                    UPDATE runs SET finished_at = ?, status = ?, exit_code = ?, receipts_total = COALESCE(?, receipts_total)
                    WHERE id = ?
                    """,
                arguments: [nowMs, status.rawValue, Int(exitCode), receiptsTotal, id])
        }
    }

    /// Asks for the run lock (a lease of `leaseMs`). Also marks runs left `running` by a dead
    /// process on this host, or whose lease ran out, as `interrupted`: that is crash recovery.
    public func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult {
        let pid = getpid()
        let host = ProcessInfo.processInfo.hostName
        return try await write("taking the run lock") { db in
            try Self.markAbandonedRuns(db, host: host, nowMs: nowMs, leaseMs: leaseMs)
            var previous: RunLockHolder?
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM run_lock WHERE id = 1") {
                let holder = RunLockHolder(
                    token: row["token"], runID: row["run_id"], pid: row["pid"], host: row["host"],
                    acquiredAt: row["acquired_at"], leaseExpiresAt: row["lease_expires_at"])
                let alive = holder.leaseExpiresAt > nowMs && !(holder.host == host && !Self.processIsAlive(holder.pid))
                if alive { return .held(by: holder) }
                previous = holder
                if let runID = holder.runID {
                    try db.execute(
                        sql: "UPDATE runs SET status = 'interrupted', finished_at = COALESCE(finished_at, ?) WHERE id = ? AND status = 'running'",
                        arguments: [nowMs, runID])
                }
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO run_lock (id, token, run_id, pid, host, acquired_at, lease_expires_at)
                    VALUES (1, ?, NULL, ?, ?, ?, ?)
                    """,
                arguments: [token, Int(pid), host, nowMs, nowMs + leaseMs])
            return .acquired(tookOverFrom: previous)
        }
    }

    /// Extends the lease and records the run it belongs to; false when the lock was lost.
    public func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool {
        try await write("renewing the run lock") { db in
            try db.execute(
                sql: "UPDATE run_lock SET lease_expires_at = ?, run_id = COALESCE(?, run_id) WHERE id = 1 AND token = ?",
                arguments: [nowMs + leaseMs, runID, token])
            if let runID {
                try db.execute(sql: "UPDATE runs SET heartbeat_at = ? WHERE id = ?", arguments: [nowMs, runID])
            }
            return db.changesCount > 0
        }
    }

    public func releaseRunLock(token: String) async throws(StoreError) {
        try await write("releasing the run lock") { db in
            try db.execute(sql: "DELETE FROM run_lock WHERE id = 1 AND token = ?", arguments: [token])
        }
    }

    /// Runs still `running` whose process is gone from this host, or whose heartbeat is older than
    /// a lease, were killed: record them as interrupted.
    package static func markAbandonedRuns(_ db: Database, host: String, nowMs: Int64, leaseMs: Int64) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, pid, host, heartbeat_at FROM runs WHERE status = 'running'")
        for row in rows {
            let pid: Int32? = row["pid"]
            let runHost: String? = row["host"]
            let heartbeat: Int64 = row["heartbeat_at"] ?? 0
            let dead = (runHost == host && pid.map { !processIsAlive($0) } == true) || heartbeat + leaseMs < nowMs
            if dead, pid != getpid() {
                try db.execute(
                    sql: "UPDATE runs SET status = 'interrupted', finished_at = ? WHERE id = ?",
                    arguments: [nowMs, row["id"] as Int64])
            }
        }
    }

    package static func processIsAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Records the run's liveness (user runs hold no lock but are recovered the same way).
    public func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError) {
        try await write("recording a run heartbeat") { db in
            try db.execute(sql: "UPDATE runs SET heartbeat_at = ? WHERE id = ?", arguments: [nowMs, runID])
        }
    }
}
