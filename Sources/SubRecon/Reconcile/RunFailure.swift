import SubReconModel
import SubReconStore

/// Why a run could not run at all, or stopped for a reason of its own (not Apple's).
public enum RunFailure: OperatorFacingError, Sendable {
    /// Another nightly run holds the database's run lock (exit 75).
    case locked(by: RunLockHolder)
    /// The database failed (exit 74).
    case store(StoreError)
    /// The settings lack what the chosen Apple API needs (exit 2).
    case configuration(String)

    public var exitStatus: ExitStatus {
        switch self {
        case .locked: .locked
        case .store(let error): error.exitStatus
        case .configuration: .configuration
        }
    }

    public var description: String {
        switch self {
        case .locked(let holder): "another run holds this database's run lock (\(holder)); nothing was done"
        case .store(let error): error.description
        case .configuration(let message): message
        }
    }
}
