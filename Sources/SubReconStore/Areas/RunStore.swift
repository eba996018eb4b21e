import SubReconModel

/// Runs and the run lock: a run's start, liveness and end, and (SQLite) the lease that lets one
/// nightly run at a time write to the database.
public protocol RunStore: Sendable {
    /// Records the start of a run and returns its id.
    func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64)
        async throws(StoreError) -> Int64
    /// Records how a run ended; `receiptsTotal`, when given, replaces the count recorded at its
    /// start (a worker that split the run with others records its own share).
    func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?)
        async throws(StoreError)
    /// Asks for the database's run lock (a lease); recovers runs left `running` by dead processes.
    func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult
    /// Extends the lease; false when another process took the lock over.
    func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool
    func releaseRunLock(token: String) async throws(StoreError)
    /// Records that a run is alive (for runs that hold no lock).
    func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError)
}
