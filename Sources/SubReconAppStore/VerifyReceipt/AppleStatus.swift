import SubReconModel

/// Apple's verifyReceipt `status`, typed. Decoded from the raw integer and never fails:
/// a code Apple has not documented becomes `.undocumented` (Apple's 'status' page, App Store
/// Receipts).
public enum AppleStatus: Sendable, Hashable, CustomStringConvertible {
    case valid
    case requestNotReadable
    case malformedReceiptData
    case receiptNotAuthenticated
    case sharedSecretMismatch
    case serverUnavailable
    case legacySubscriptionExpired
    case sandboxReceiptSentToProduction
    case productionReceiptSentToSandbox
    case internalDataAccessError
    case accountNotFound
    case internalError(Int)
    case undocumented(Int)

    public init(rawValue: Int) {
        switch rawValue {
        case 0: self = .valid
        case 21000: self = .requestNotReadable
        case 21002: self = .malformedReceiptData
        case 21003: self = .receiptNotAuthenticated
        case 21004: self = .sharedSecretMismatch
        case 21005: self = .serverUnavailable
        case 21006: self = .legacySubscriptionExpired
        case 21007: self = .sandboxReceiptSentToProduction
        case 21008: self = .productionReceiptSentToSandbox
        case 21009: self = .internalDataAccessError
        case 21010: self = .accountNotFound
        case 21100...21199: self = .internalError(rawValue)
        default: self = .undocumented(rawValue)
        }
    }

    public var rawValue: Int {
        switch self {
        case .valid: 0
        case .requestNotReadable: 21000
        case .malformedReceiptData: 21002
        case .receiptNotAuthenticated: 21003
        case .sharedSecretMismatch: 21004
        case .serverUnavailable: 21005
        case .legacySubscriptionExpired: 21006
        case .sandboxReceiptSentToProduction: 21007
        case .productionReceiptSentToSandbox: 21008
        case .internalDataAccessError: 21009
        case .accountNotFound: 21010
        case .internalError(let code), .undocumented(let code): code
        }
    }

    public var description: String {
        switch self {
        case .valid: "0 (valid)"
        case .requestNotReadable: "21000 (Apple could not read our request)"
        case .malformedReceiptData: "21002 (receipt data malformed or service temporarily unavailable)"
        case .receiptNotAuthenticated: "21003 (receipt could not be authenticated)"
        case .sharedSecretMismatch: "21004 (the shared secret does not match the one on file)"
        case .serverUnavailable: "21005 (receipt server temporarily unavailable)"
        case .legacySubscriptionExpired: "21006 (legacy receipt, subscription expired)"
        case .sandboxReceiptSentToProduction: "21007 (sandbox receipt sent to production)"
        case .productionReceiptSentToSandbox: "21008 (production receipt sent to sandbox)"
        case .internalDataAccessError: "21009 (Apple internal data access error)"
        case .accountNotFound: "21010 (user account not found or deleted)"
        case .internalError(let code): "\(code) (Apple internal error)"
        case .undocumented(let code): "\(code) (undocumented status)"
        }
    }
}
