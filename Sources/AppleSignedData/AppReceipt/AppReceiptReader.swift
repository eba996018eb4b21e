import SwiftASN1

/// Reads the in-app purchase records of an app receipt (base64 of a PKCS#7 ContentInfo, as
/// `SKReceiptRefreshRequest`/`appStoreReceiptURL` gives it) without calling Apple and **without
/// verifying anything**: the result only says which transaction to ask the App Store Server API
/// about, and Apple's signed answer is what is trusted (as with Apple's App Store Server Library,
/// whose `ReceiptUtility` reads the id the same way).
///
/// Parsing follows Apple's own `ReceiptUtility`: BER (indefinite lengths and constructed OCTET
/// STRINGs are accepted, as Xcode's StoreKit-testing receipts use them), ContentInfo → SignedData
/// → encapContentInfo → eContent → `SET OF ReceiptAttribute`, and each type-17 value is itself a
/// `SET OF` in-app attributes. An extra OCTET STRING around the payload (seen in Xcode receipts) is
/// unwrapped. Nesting is bounded by swift-asn1's parser (depth 50) and by
/// `maximumOctetStringWrapping`; input size by `maximumBase64Count`.
public enum AppReceiptReader {
    /// Longest receipt data accepted, in base64 characters (whitespace included). Real receipts
    /// are a few KB, and tens of KB for accounts with a long purchase history.
    public static let maximumBase64Count = 2 * 1024 * 1024
    /// OCTET STRINGs around the payload that are unwrapped at most.
    static let maximumOctetStringWrapping = 4

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]

    /// The bundle id and in-app records of the base64 app receipt `receiptData`. ASCII whitespace
    /// (line breaks some clients insert) is ignored; the URL-safe alphabet and missing padding are
    /// accepted.
    public static func purchases(base64 receiptData: String) throws(AppReceiptError) -> AppReceiptContents {
        let characterCount = receiptData.utf8.count
        guard characterCount <= maximumBase64Count else {
            throw .tooLarge(characterCount: characterCount, limit: maximumBase64Count)
        }
        guard let bytes = AppReceiptBase64.decode(receiptData.utf8), !bytes.isEmpty else { throw .notBase64 }
        return try purchases(receipt: bytes)
    }

    /// The same, from the receipt's bytes (after base64).
    public static func purchases(receipt bytes: [UInt8]) throws(AppReceiptError) -> AppReceiptContents {
        if looksLikeTransactionReceipt(bytes) { throw .transactionReceipt }
        let payload = try signedContent(bytes)
        return try contents(payload: payload)
    }

    // MARK: - PKCS#7 layers

    /// The eContent octets of a ContentInfo holding SignedData.
    private static func signedContent(_ bytes: [UInt8]) throws(AppReceiptError) -> ArraySlice<UInt8> {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw .notPKCS7(reason: "not ASN.1 BER")
        }
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw .notPKCS7(reason: "not an ASN.1 SEQUENCE")
        }
        var fields = contentInfo.makeIterator()
        guard let typeNode = fields.next(), let contentType = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw .notPKCS7(reason: "no content type")
        }
        guard contentType == signedDataOID else { throw .wrongContentType(contentType.description) }
        guard let signedData = fields.next().flatMap({ explicitContent(of: $0) }),
              signedData.identifier == .sequence, case .constructed(let signedDataFields) = signedData.content
        else {
            throw .notPKCS7(reason: "no SignedData")
        }
        // SignedData: version, digestAlgorithms, encapContentInfo, ...
        var signedFields = signedDataFields.makeIterator()
        _ = signedFields.next()
        _ = signedFields.next()
        guard let encapsulated = signedFields.next(), encapsulated.identifier == .sequence,
              case .constructed(let encapsulatedFields) = encapsulated.content
        else {
            throw .notPKCS7(reason: "no encapsulated content")
        }
        var innerFields = encapsulatedFields.makeIterator()
        guard let innerTypeNode = innerFields.next(),
              let innerType = try? ASN1ObjectIdentifier(berEncoded: innerTypeNode)
        else {
            throw .notPKCS7(reason: "no encapsulated content type")
        }
        guard innerType == dataOID else { throw .wrongContentType("signed \(innerType.description)") }
        guard let eContent = innerFields.next().flatMap({ explicitContent(of: $0) }),
              let octets = try? ASN1OctetString(berEncoded: eContent)
        else {
            throw .payloadUnreadable(reason: "no signed content")
        }
        return octets.bytes
    }

    /// The single element inside a `[0] EXPLICIT` field, or nil.
    private static func explicitContent(of node: ASN1Node) -> ASN1Node? {
        guard node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
              case .constructed(let children) = node.content
        else { return nil }
        var iterator = children.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }

    // MARK: - Payload

    private static func contents(payload: ArraySlice<UInt8>) throws(AppReceiptError) -> AppReceiptContents {
        guard let attributes = attributeSet(payload, unwrapping: maximumOctetStringWrapping) else {
            throw .payloadUnreadable(reason: "not a SET of receipt attributes")
        }
        var bundleID: String?
        var purchases: [AppReceiptPurchase] = []
        for (type, value) in attributes {
            switch type {
            case AppReceiptAttributeType.bundleID:
                bundleID = text(value)
            case AppReceiptAttributeType.inAppPurchase:
                guard let fields = attributeSet(value, unwrapping: 0) else {
                    throw .payloadUnreadable(reason: "in-app purchase record \(purchases.count + 1) is not a SET")
                }
                purchases.append(purchase(fields))
            default:
                continue
            }
        }
        return AppReceiptContents(bundleID: bundleID, purchases: purchases)
    }

    private static func purchase(_ fields: [(type: Int64, value: ArraySlice<UInt8>)]) -> AppReceiptPurchase {
        var purchase = AppReceiptPurchase()
        for (type, value) in fields {
            switch type {
            case AppReceiptAttributeType.productID: purchase.productID = text(value)
            case AppReceiptAttributeType.transactionID: purchase.transactionID = text(value)
            case AppReceiptAttributeType.originalTransactionID: purchase.originalTransactionID = text(value)
            case AppReceiptAttributeType.expiresDate: purchase.expiresDate = text(value)
            case AppReceiptAttributeType.webOrderLineItemID: purchase.webOrderLineItemID = integer(value)
            default: continue
            }
        }
        return purchase
    }

    /// The `(type, value)` pairs of a BER `SET OF SEQUENCE { type INTEGER, version INTEGER, value
    /// OCTET STRING }`, after unwrapping up to `unwrapping` OCTET STRINGs around it. Malformed
    /// elements are skipped, as Apple's parser does; nil when `bytes` is not such a SET at all.
    private static func attributeSet(
        _ bytes: ArraySlice<UInt8>, unwrapping: Int
    ) -> [(type: Int64, value: ArraySlice<UInt8>)]? {
        guard var node = try? BER.parse(bytes) else { return nil }
        var unwrapsLeft = unwrapping
        while node.identifier == .octetString, unwrapsLeft > 0 {
            unwrapsLeft -= 1
            guard let inner = try? ASN1OctetString(berEncoded: node), let innerNode = try? BER.parse(inner.bytes) else {
                return nil
            }
            node = innerNode
        }
        guard node.identifier == .set, case .constructed(let elements) = node.content else { return nil }
        var attributes: [(type: Int64, value: ArraySlice<UInt8>)] = []
        for element in elements {
            guard element.identifier == .sequence, case .constructed(let fields) = element.content else { continue }
            var iterator = fields.makeIterator()
            guard let typeNode = iterator.next(), iterator.next() != nil, let valueNode = iterator.next(),
                  let type = try? Int64(berEncoded: typeNode, withIdentifier: .integer),
                  let value = try? ASN1OctetString(berEncoded: valueNode)
            else { continue }
            attributes.append((type, value.bytes))
        }
        return attributes
    }

    /// A value holding a DER UTF8String, IA5String (or another string type) as text; an INTEGER
    /// as decimal. Nil for anything else, or text that is not valid UTF-8.
    static func text(_ value: ArraySlice<UInt8>) -> String? {
        guard let node = try? BER.parse(value) else { return nil }
        if node.identifier == .integer {
            return (try? Int64(berEncoded: node)).map { String($0) }
        }
        guard node.identifier.tagClass == .universal, stringTags.contains(node.identifier.tagNumber),
              let octets = try? ASN1OctetString(berEncoded: node, withIdentifier: node.identifier)
        else { return nil }
        return String(validating: octets.bytes, as: UTF8.self)
    }

    /// UTF8String, PrintableString, TeletexString, IA5String, VisibleString, UniversalString excluded.
    private static let stringTags: Set<UInt> = [12, 19, 20, 22, 26]

    /// A value holding a DER INTEGER that fits 64 bits.
    static func integer(_ value: ArraySlice<UInt8>) -> Int64? {
        guard let node = try? BER.parse(value) else { return nil }
        return try? Int64(berEncoded: node, withIdentifier: .integer)
    }

    /// An iOS 6-style transaction receipt is base64 of a text property list: `{ "signature" = ...`.
    private static func looksLikeTransactionReceipt(_ bytes: [UInt8]) -> Bool {
        let start = bytes.firstIndex { !AppReceiptBase64.isWhitespace($0) }
        return start.map { bytes[$0] == UInt8(ascii: "{") } ?? false
    }
}
