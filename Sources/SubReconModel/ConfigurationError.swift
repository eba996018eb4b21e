/// A usage or configuration problem (exit code 2). Each case is one operator-facing sentence and
/// never contains the shared secret or a database password (a database URL in it is masked).
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingSharedSecret
    case bothSharedSecretSourcesSet
    case sharedSecretFileUnreadable(path: String, reason: String)
    case sharedSecretFileEmpty(path: String)
    case invalidURL(setting: String, value: String)
    case invalidNumber(setting: String, value: String, expected: String)
    case invalidValue(setting: String, value: String, validChoices: [String])
    case unknownUser(String)
    /// `maskedURL` is `PostgresURL.mask`ed; `problem` never quotes the user name or password.
    case invalidDatabaseURL(maskedURL: String, problem: String)
    case bothDatabasePasswordSourcesSet(maskedURL: String)
    case databasePasswordFileUnreadable(path: String, reason: String)
    case databasePasswordFileEmpty(path: String)
    case other(String)

    public var description: String {
        switch self {
        case .missingSharedSecret:
            "no shared secret: set SUBRECON_SHARED_SECRET, or SUBRECON_SHARED_SECRET_FILE / --shared-secret-file "
                + "to a file whose first line is the app's App Store shared secret"
        case .bothSharedSecretSourcesSet:
            "both SUBRECON_SHARED_SECRET and a shared secret file are set; set only one, so there is no doubt which is used"
        case .sharedSecretFileUnreadable(let path, let reason):
            "cannot read the shared secret file \(path): \(reason)"
        case .sharedSecretFileEmpty(let path):
            "the shared secret file \(path) is empty (its first line must be the secret)"
        case .invalidURL(let setting, let value):
            "\(setting) must be an http:// or https:// URL, not \"\(value)\""
        case .invalidNumber(let setting, let value, let expected):
            "\(setting) must be \(expected), not \"\(value)\""
        case .invalidValue(let setting, let value, let choices):
            "\(setting) must be one of \(choices.joined(separator: ", ")), not \"\(value)\""
        case .unknownUser(let user):
            "no receipts are stored for user \"\(user)\" (import them first with `subrecon import`)"
        case .invalidDatabaseURL(let url, let problem):
            "the database URL \(url) \(problem); the form is "
                + "postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?sslmode=disable|require|verify-full&sslrootcert=PATH]"
        case .bothDatabasePasswordSourcesSet(let url):
            "the database URL \(url) has a password and SUBRECON_DB_PASSWORD_FILE is set too; "
                + "give only one, so there is no doubt which is used (the file is better: a URL in an argument shows in ps)"
        case .databasePasswordFileUnreadable(let path, let reason):
            "cannot read the database password file \(path) (SUBRECON_DB_PASSWORD_FILE): \(reason)"
        case .databasePasswordFileEmpty(let path):
            "the database password file \(path) (SUBRECON_DB_PASSWORD_FILE) is empty (its first line must be the password)"
        case .other(let message):
            message
        }
    }
}
