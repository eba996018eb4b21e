/// What the verification source (verifyReceipt or the App Store Server API) says about one
/// receipt, classified. The pipeline and the reconciler depend only on this.
public enum VerificationOutcome: Sendable {
    /// Apple answered with the customer's subscriptions (verifyReceipt status 0 or a legacy 21006,
    /// or a verified Server API answer).
    case answered(AppleAccount)
    /// Definitive: verifyReceipt's 21003 (the receipt could not be authenticated), or the Server
    /// API knows the transaction nowhere (4040010 in both environments), or no transaction id could
    /// be found to ask about. Nothing it granted is extended. `message` is operator-facing.
    case invalid(appleStatus: Int?, environment: ReceiptEnvironment?, message: String)
    /// Apple cannot find the account. Definitive. `appleStatus` is the code of the API that said
    /// so, shown in run items: verifyReceipt's 21010, or the Server API's 4040001 (AccountNotFound).
    case accountGone(appleStatus: Int = AccountGone.verifyReceiptStatus, environment: ReceiptEnvironment?)
    /// No usable answer (transport failure, retryable or undocumented status, nonsense body):
    /// nothing changes and the receipt stays due.
    case failed(VerificationFailure)
    /// The run must stop: 21004 (shared secret) or 21000 (our request is malformed).
    case stopRun(RunStoppingProblem)
}

/// Why a receipt got no usable answer. `message` is operator-facing and never holds the secret.
public struct VerificationFailure: Sendable, Equatable, Error {
    public var appleStatus: Int?
    public var environment: ReceiptEnvironment?
    public var message: String
    /// Worth another attempt within this run (timeouts, 5xx, 21005, retryable 211xx, ...).
    public var isRetryable: Bool
    /// The wait Apple asked for (`Retry-After`), if it did.
    public var retryAfter: Duration?
    /// Attempts made before giving up.
    public var attempts: Int

    public init(
        appleStatus: Int? = nil, environment: ReceiptEnvironment? = nil, message: String, isRetryable: Bool = false,
        retryAfter: Duration? = nil, attempts: Int = 1
    ) {
        self.appleStatus = appleStatus
        self.environment = environment
        self.message = message
        self.isRetryable = isRetryable
        self.retryAfter = retryAfter
        self.attempts = attempts
    }
}

/// An answer that makes every further request pointless (exit code 2).
public enum RunStoppingProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case sharedSecretMismatch
    case requestRejected
    /// The App Store Server API refused our JWT (HTTP 401).
    case apiKeyRejected(environment: ReceiptEnvironment)
    /// The App Store Server API does not know the app (4040003).
    case appNotFound(environment: ReceiptEnvironment)

    /// The status recorded in run items: verifyReceipt's code, or the HTTP status / error code.
    public var appleStatus: Int {
        switch self {
        case .sharedSecretMismatch: 21004
        case .requestRejected: 21000
        case .apiKeyRejected: 401
        case .appNotFound: 4040003
        }
    }

    public var description: String {
        switch self {
        case .sharedSecretMismatch:
            "Apple answered 21004: the shared secret does not match the one App Store Connect has for this app "
                + "(regenerated, or an app-specific secret exists). Set SUBRECON_SHARED_SECRET or "
                + "SUBRECON_SHARED_SECRET_FILE to the current secret. The run stopped; no subscription was changed because of it."
        case .requestRejected:
            "Apple answered 21000: it could not read our request (a bug in subrecon or a proxy in between). "
                + "The run stopped; no subscription was changed because of it."
        case .apiKeyRejected(let environment):
            "The App Store Server API (\(environment.rawValue)) answered 401: it refused our JSON Web Token. Likely causes: "
                + "the key file, key ID (SUBRECON_API_KEY_ID) or issuer ID (SUBRECON_API_ISSUER_ID) is wrong or does not "
                + "belong together; the key was revoked in App Store Connect; the bundle ID (SUBRECON_BUNDLE_ID, case-sensitive) "
                + "is not this key's app; this machine's clock is off; or the app has no production release yet (production "
                + "then answers 401 while the sandbox works). The run stopped; no subscription was changed because of it."
        case .appNotFound(let environment):
            "The App Store Server API (\(environment.rawValue)) does not know the app (4040003): check SUBRECON_BUNDLE_ID. "
                + "The run stopped; no subscription was changed because of it."
        }
    }
}

/// The codes with which each Apple API says it cannot find the account, and the run item's message.
public enum AccountGone {
    /// verifyReceipt's status.
    public static let verifyReceiptStatus = 21010
    /// The App Store Server API's error code (HTTP 404, AccountNotFound, "do not retry").
    public static let serverAPIStatus = ServerAPIErrorCode.accountNotFound.rawValue

    /// The operator's sentence for a run item, naming the API's own code.
    public static func message(appleStatus: Int) -> String {
        let source = appleStatus == serverAPIStatus ? "the App Store Server API answered AccountNotFound" : "Apple cannot find this account"
        return "\(source) (\(appleStatus)); its subscriptions run until their stored expiry"
    }
}
