import SubReconModel

/// Who holds a database's run lock: one nightly `run` at a time, as a lease renewed while the run
/// lives. A lease that expired, or whose process is gone from this host, is taken over.
public struct RunLockHolder: Sendable, Equatable, CustomStringConvertible {
    public var token: String
    public var runID: Int64?
    public var pid: Int32
    public var host: String
    public var acquiredAt: Int64
    public var leaseExpiresAt: Int64

    public var description: String {
        "pid \(pid) on \(host)\(runID.map { ", run \($0)" } ?? "") since \(ISO8601.string(fromMilliseconds: acquiredAt))"
    }
}

/// The outcome of asking for the run lock.
public enum RunLockResult: Sendable, Equatable {
    /// Acquired; `tookOverFrom` names a holder whose lease had expired or whose process had died.
    case acquired(tookOverFrom: RunLockHolder?)
    case held(by: RunLockHolder)
}
