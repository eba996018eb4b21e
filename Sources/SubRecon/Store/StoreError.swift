/// A failure of the database itself (not of one receipt). Each case is one operator-facing sentence.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case failed(operation: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason)"
        case .failed(let operation, let reason): "the database failed while \(operation): \(reason)"
        }
    }
}
