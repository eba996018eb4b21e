/// Why an app receipt could not be read. Descriptions are for operators: they say what was
/// wrong and never echo the receipt itself.
public enum AppReceiptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The receipt data is longer than `AppReceiptReader.maximumBase64Count` characters.
    case tooLarge(characterCount: Int, limit: Int)
    /// Not base64 (after ignoring whitespace), or empty.
    case notBase64
    /// An iOS 6-style transaction receipt (a text property list), not an app receipt.
    case transactionReceipt
    /// The bytes are not a PKCS#7 ContentInfo (an ASN.1 SEQUENCE starting with an object identifier).
    case notPKCS7(reason: String)
    /// A PKCS#7 container, but not signed data (1.2.840.113549.1.7.2) holding data (1.2.840.113549.1.7.1).
    case wrongContentType(String)
    /// The signed content is missing or is not a SET of receipt attributes.
    case payloadUnreadable(reason: String)

    public var description: String {
        switch self {
        case let .tooLarge(count, limit):
            return "receipt data too large: \(count) characters of base64, at most \(limit) accepted"
        case .notBase64:
            return "receipt data is not base64"
        case .transactionReceipt:
            return "receipt data is an iOS 6-style transaction receipt (a text property list), not an app receipt"
        case let .notPKCS7(reason):
            return "receipt data is not a PKCS#7 app receipt (\(reason))"
        case let .wrongContentType(oid):
            return "receipt data is PKCS#7 but holds \(oid), not signed data"
        case let .payloadUnreadable(reason):
            return "app receipt payload unreadable (\(reason))"
        }
    }
}
