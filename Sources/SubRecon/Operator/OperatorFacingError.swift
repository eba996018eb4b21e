import SubReconAppStore
import SubReconModel
import SubReconStore

/// An error a command ends with: what the operator reads on stderr and the contract's exit
/// status. Every error a command's entry point throws is one; the executable prints `lines`
/// (each as `subrecon: LINE`) and exits with `exitStatus`, in one place.
public protocol OperatorFacingError: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
    /// The lines stderr shows; the description unless a list reads better line by line.
    var lines: [String] { get }
}

extension OperatorFacingError {
    public var lines: [String] { [description] }

    /// The status as the number the process exits with.
    public var exitCode: Int32 { exitStatus.rawValue }
}

// The typed errors of the targets below, with the status the contract gives each.

extension ConfigurationError: OperatorFacingError {
    public var exitStatus: ExitStatus { .configuration }
}

extension StoreError: OperatorFacingError {
    public var exitStatus: ExitStatus { isConfiguration ? .configuration : .databaseFailed }
}

extension StoreOpenFailure: OperatorFacingError {
    public var exitStatus: ExitStatus { ExitStatus(rawValue: exitCode) ?? .databaseFailed }
}

extension ReportError: OperatorFacingError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unknownRun, .invalidOption: .configuration
        // EX_CANTCREAT: the output file (a report, the dashboard) cannot be created.
        case .cannotWrite: .cannotCreateOutput
        case .failed: .databaseFailed
        }
    }
}

extension SalesReportFetchError: OperatorFacingError {
    /// A refused key or request is the operator's to fix (2); anything else leaves the days to the next run (1).
    public var exitStatus: ExitStatus { isConfigurationError ? .configuration : .incomplete }
}

/// The database failed in a command for which any store failure is exit 74, whatever the
/// failure (`status`, `user`, `db migrate`, the ledger refill's bookkeeping).
public struct DatabaseFailure: OperatorFacingError {
    public var error: StoreError

    public init(_ error: StoreError) { self.error = error }

    public var exitStatus: ExitStatus { .databaseFailed }
    public var description: String { error.description }
}
