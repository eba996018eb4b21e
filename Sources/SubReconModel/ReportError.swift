/// Why a report could not be written.
public enum ReportError: Error, Sendable, CustomStringConvertible {
    case unknownRun(Int64)
    /// A flag value or combination the report cannot use (a usage error: exit 2).
    case invalidOption(String)
    case cannotWrite(path: String, reason: String)
    case failed(String)

    public var description: String {
        switch self {
        case .unknownRun(let id): "there is no run \(id) (see `subrecon report runs`)"
        case .invalidOption(let sentence): sentence
        case .cannotWrite(let path, let reason): "cannot write the report to \(path): \(reason)"
        case .failed(let reason): "the report failed: \(reason)"
        }
    }
}
