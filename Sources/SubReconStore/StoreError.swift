import SubReconModel

/// A failure of the database itself (not of one receipt). Each case is one operator-facing sentence.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case failed(operation: String, reason: String)
    /// PostgreSQL refused the user or password: a configuration error (exit 2), not an outage.
    case credentialsRefused(reason: String)
    /// A configuration that cannot work (e.g. copying into a store that already holds receipts): exit 2.
    case refused(String)

    /// Whether this is the operator's to fix in the settings (exit 2) rather than a failure (exit 74).
    public var isConfiguration: Bool {
        switch self {
        case .credentialsRefused, .refused: true
        case .cannotOpen, .failed: false
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason)"
        case .failed(let operation, let reason): "the database failed while \(operation): \(reason)"
        case .credentialsRefused(let reason):
            "the PostgreSQL server refused the user or password (\(reason)); check SUBRECON_DB and SUBRECON_DB_PASSWORD_FILE"
        case .refused(let sentence): sentence
        }
    }
}
