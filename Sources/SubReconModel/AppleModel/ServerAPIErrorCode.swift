/// An App Store Server API error code (the `errorCode` of Apple's error body), named as Apple's
/// documentation names it. A code this type does not name is kept as it came (`rawValue`), never
/// refused: Apple adds codes. The simulator, which plays Apple, keeps its own literals on purpose.
public struct ServerAPIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let invalidRequestRevision = Self(rawValue: 4_000_005)
    public static let invalidTransactionID = Self(rawValue: 4_000_006)
    public static let startDateTooFarInPast = Self(rawValue: 4_000_012)
    public static let paginationTokenExpired = Self(rawValue: 4_000_017)
    public static let appTransactionIDNotSupported = Self(rawValue: 4_000_048)
    public static let invalidAppAccountTokenUUID = Self(rawValue: 4_000_183)
    public static let familyTransactionNotSupported = Self(rawValue: 4_000_185)
    public static let transactionIDIsNotOriginalTransactionID = Self(rawValue: 4_000_187)
    public static let invalidAssignedTransactionNotSupported = Self(rawValue: 4_000_227)
    public static let accountNotFound = Self(rawValue: 4_040_001)
    public static let accountNotFoundRetryable = Self(rawValue: 4_040_002)
    public static let appNotFound = Self(rawValue: 4_040_003)
    public static let appNotFoundRetryable = Self(rawValue: 4_040_004)
    public static let originalTransactionIDNotFound = Self(rawValue: 4_040_005)
    public static let originalTransactionIDNotFoundRetryable = Self(rawValue: 4_040_006)
    public static let transactionIDNotFound = Self(rawValue: 4_040_010)
    public static let rateLimitExceeded = Self(rawValue: 4_290_000)
    public static let generalInternal = Self(rawValue: 5_000_000)
    public static let generalInternalRetryable = Self(rawValue: 5_000_001)

    /// Apple's name for the code (`AccountNotFoundError`), or nil for one this type does not name.
    public var name: String? {
        switch self {
        case .invalidRequestRevision: "InvalidRequestRevisionError"
        case .invalidTransactionID: "InvalidTransactionIdError"
        case .startDateTooFarInPast: "StartDateTooFarInPastError"
        case .paginationTokenExpired: "PaginationTokenExpiredError"
        case .appTransactionIDNotSupported: "AppTransactionIdNotSupportedError"
        case .invalidAppAccountTokenUUID: "InvalidAppAccountTokenUUIDError"
        case .familyTransactionNotSupported: "FamilyTransactionNotSupportedError"
        case .transactionIDIsNotOriginalTransactionID: "TransactionIdIsNotOriginalTransactionIdError"
        case .invalidAssignedTransactionNotSupported: "InvalidAssignedTransactionNotSupportedError"
        case .accountNotFound: "AccountNotFoundError"
        case .accountNotFoundRetryable: "AccountNotFoundRetryableError"
        case .appNotFound: "AppNotFoundError"
        case .appNotFoundRetryable: "AppNotFoundRetryableError"
        case .originalTransactionIDNotFound: "OriginalTransactionIdNotFoundError"
        case .originalTransactionIDNotFoundRetryable: "OriginalTransactionIdNotFoundRetryableError"
        case .transactionIDNotFound: "TransactionIdNotFoundError"
        case .rateLimitExceeded: "RateLimitExceededError"
        case .generalInternal: "GeneralInternalError"
        case .generalInternalRetryable: "GeneralInternalRetryableError"
        default: nil
        }
    }

    /// Apple says "you can try again" for these (the `…RetryableError` codes).
    public var isRetryable: Bool {
        [.accountNotFoundRetryable, .appNotFoundRetryable, .originalTransactionIDNotFoundRetryable, .generalInternalRetryable]
            .contains(self)
    }

    /// `4040001 (AccountNotFoundError)`, or the bare number for a code this type does not name.
    public var description: String { name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)" }
}
