/// A usage or configuration problem (exit code 2). Each case is one operator-facing sentence and
/// never contains the shared secret.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingSharedSecret
    case bothSharedSecretSourcesSet
    case sharedSecretFileUnreadable(path: String, reason: String)
    case sharedSecretFileEmpty(path: String)
    case invalidURL(setting: String, value: String)
    case invalidNumber(setting: String, value: String, expected: String)
    case invalidValue(setting: String, value: String, validChoices: [String])
    case unknownUser(String)
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
        case .other(let message):
            message
        }
    }
}
