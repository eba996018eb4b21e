/// Writes app receipts in Apple's layout (reference §10.1), for the built-in simulator and tests.
///
/// The container is **unsigned**: a DER PKCS#7 ContentInfo/SignedData with empty
/// digestAlgorithms, no certificates and empty signerInfos. Apple's receipts are signed, but
/// nothing that reads app receipts for the App Store Server API verifies them (Apple's answer is
/// what is trusted), so a signature would only cost time.
///
/// Encoding is DER (definite, minimal lengths) except for attribute order: attributes are written
/// in ascending type (stable), where DER's `SET OF` would sort by encoded bytes. Readers, Apple's
/// included, do not depend on the order, and it lets a reader find types 2 and 4 near the start.
public enum AppReceiptWriter {
    /// The receipt's bytes (base64 them for receipt data): type 2 `bundleID`, one type-17 record
    /// per purchase (1702, 1703, 1705, 1708, 1711 for the fields that are set), and each of
    /// `extraAttributes` with its value as the attribute's raw OCTET STRING contents.
    public static func receipt(
        bundleID: String,
        purchases: [AppReceiptPurchase],
        extraAttributes: [(type: Int, value: [UInt8])]
    ) -> [UInt8] {
        var encoder = DEREncoder()
        encoder.constructed(DEREncoder.sequence) { contentInfo in
            contentInfo.primitive(DEREncoder.objectIdentifier, signedDataOID)
            contentInfo.constructed(DEREncoder.contextZero) { explicit in
                explicit.constructed(DEREncoder.sequence) { signedData in
                    signedData.integer(1)
                    signedData.constructed(DEREncoder.set) { _ in }  // digestAlgorithms
                    signedData.constructed(DEREncoder.sequence) { encapsulated in
                        encapsulated.primitive(DEREncoder.objectIdentifier, dataOID)
                        encapsulated.constructed(DEREncoder.contextZero) { explicit in
                            explicit.wrapped(DEREncoder.octetString) { payload in
                                writePayload(
                                    bundleID: bundleID, purchases: purchases, extras: extraAttributes, to: &payload)
                            }
                        }
                    }
                    signedData.constructed(DEREncoder.set) { _ in }  // signerInfos
                }
            }
        }
        return encoder.bytes
    }

    /// 1.2.840.113549.1.7.2 and 1.2.840.113549.1.7.1, content octets.
    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    private enum Part {
        case bundleID
        case purchase(Int)
        case extra(Int)
    }

    private static func writePayload(
        bundleID: String, purchases: [AppReceiptPurchase], extras: [(type: Int, value: [UInt8])],
        to payload: inout DEREncoder
    ) {
        // (type, part) in ascending type, stable.
        var parts: [(type: Int, part: Part)] = [(Int(AppReceiptReader.AttributeType.bundleID), .bundleID)]
        parts.reserveCapacity(1 + purchases.count + extras.count)
        for index in purchases.indices {
            parts.append((Int(AppReceiptReader.AttributeType.inAppPurchase), .purchase(index)))
        }
        for (index, extra) in extras.enumerated() {
            parts.append((extra.type, .extra(index)))
        }
        let ordered = parts.enumerated().sorted { ($0.element.type, $0.offset) < ($1.element.type, $1.offset) }
        payload.constructed(DEREncoder.set) { set in
            for (_, entry) in ordered {
                switch entry.part {
                case .bundleID:
                    set.attribute(type: entry.type) { $0.string(DEREncoder.utf8String, bundleID) }
                case .purchase(let index):
                    set.attribute(type: entry.type) { value in
                        value.constructed(DEREncoder.set) { writeFields(of: purchases[index], to: &$0) }
                    }
                case .extra(let index):
                    set.attribute(type: entry.type) { $0.append(extras[index].value) }
                }
            }
        }
    }

    private static func writeFields(of purchase: AppReceiptPurchase, to set: inout DEREncoder) {
        typealias T = AppReceiptReader.AttributeType
        if let productID = purchase.productID {
            set.attribute(type: Int(T.productID)) { $0.string(DEREncoder.utf8String, productID) }
        }
        if let transactionID = purchase.transactionID {
            set.attribute(type: Int(T.transactionID)) { $0.string(DEREncoder.utf8String, transactionID) }
        }
        if let originalTransactionID = purchase.originalTransactionID {
            set.attribute(type: Int(T.originalTransactionID)) { $0.string(DEREncoder.utf8String, originalTransactionID) }
        }
        if let expiresDate = purchase.expiresDate {
            set.attribute(type: Int(T.expiresDate)) { $0.string(DEREncoder.ia5String, expiresDate) }
        }
        if let webOrderLineItemID = purchase.webOrderLineItemID {
            set.attribute(type: Int(T.webOrderLineItemID)) { $0.integer(webOrderLineItemID) }
        }
    }
}

/// A minimal DER writer into one growing buffer: a constructed element's length is written once
/// its contents are, shifting them when the length needs more than one byte.
struct DEREncoder {
    static let integerTag: UInt8 = 0x02
    static let octetString: UInt8 = 0x04
    static let objectIdentifier: UInt8 = 0x06
    static let utf8String: UInt8 = 0x0C
    static let ia5String: UInt8 = 0x16
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let contextZero: UInt8 = 0xA0

    var bytes: [UInt8] = []

    /// An element whose contents `body` writes (`tag` already carries the constructed bit).
    mutating func constructed(_ tag: UInt8, _ body: (inout DEREncoder) -> Void) {
        wrapped(tag, body)
    }

    /// Any element whose contents `body` writes, e.g. an OCTET STRING holding DER.
    mutating func wrapped(_ tag: UInt8, _ body: (inout DEREncoder) -> Void) {
        bytes.append(tag)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var lengthBytes: [UInt8] = []
        var rest = length
        while rest > 0 {
            lengthBytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        }
        bytes[lengthAt] = 0x80 | UInt8(lengthBytes.count)
        bytes.insert(contentsOf: lengthBytes, at: lengthAt + 1)
    }

    mutating func primitive(_ tag: UInt8, _ contents: [UInt8]) {
        wrapped(tag) { $0.append(contents) }
    }

    mutating func string(_ tag: UInt8, _ text: String) {
        wrapped(tag) { $0.bytes.append(contentsOf: text.utf8) }
    }

    mutating func append(_ contents: [UInt8]) {
        bytes.append(contentsOf: contents)
    }

    /// A two's-complement INTEGER in the fewest bytes.
    mutating func integer(_ value: Int64) {
        var count = 8
        while count > 1 {
            let top = UInt8(truncatingIfNeeded: value >> ((count - 1) * 8))
            let next = UInt8(truncatingIfNeeded: value >> ((count - 2) * 8))
            // The top byte is redundant when it only repeats the next byte's sign bit.
            guard (top == 0 && next & 0x80 == 0) || (top == 0xFF && next & 0x80 != 0) else { break }
            count -= 1
        }
        bytes.append(Self.integerTag)
        bytes.append(UInt8(count))
        for index in stride(from: count - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (index * 8)))
        }
    }

    /// `SEQUENCE { type INTEGER, version INTEGER (1), value OCTET STRING }` with `body` writing the value.
    mutating func attribute(type: Int, _ body: (inout DEREncoder) -> Void) {
        constructed(Self.sequence) { sequence in
            sequence.integer(Int64(type))
            sequence.integer(1)
            sequence.wrapped(Self.octetString, body)
        }
    }
}
