/// Writes app receipts in Apple's layout (a PKCS #7 SignedData whose content is a SET of receipt
/// attributes: Apple's 'Receipt Fields' page), for the built-in simulator and tests.
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
        let ordered = orderedParts(purchases: purchases.count, extras: extraAttributes)
        return DEREncoder.encode { encoder in
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
                                        ordered, bundleID: bundleID, purchases: purchases, extras: extraAttributes,
                                        to: &payload)
                                }
                            }
                        }
                        signedData.constructed(DEREncoder.set) { _ in }  // signerInfos
                    }
                }
            }
        }
    }

    /// 1.2.840.113549.1.7.2 and 1.2.840.113549.1.7.1, content octets.
    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    private enum Part {
        case bundleID
        case purchase(Int)
        case extra(Int)
    }

    /// The payload's attributes in ascending type, stable.
    private static func orderedParts(purchases: Int, extras: [(type: Int, value: [UInt8])]) -> [(type: Int, part: Part)] {
        var parts: [(type: Int, part: Part)] = [(Int(AppReceiptAttributeType.bundleID), .bundleID)]
        parts.reserveCapacity(1 + purchases + extras.count)
        for index in 0..<purchases {
            parts.append((Int(AppReceiptAttributeType.inAppPurchase), .purchase(index)))
        }
        for (index, extra) in extras.enumerated() {
            parts.append((extra.type, .extra(index)))
        }
        let isSorted = zip(parts, parts.dropFirst()).allSatisfy { $0.type <= $1.type }
        guard !isSorted else { return parts }
        return parts.enumerated()
            .sorted { ($0.element.type, $0.offset) < ($1.element.type, $1.offset) }
            .map(\.element)
    }

    private static func writePayload(
        _ ordered: [(type: Int, part: Part)], bundleID: String, purchases: [AppReceiptPurchase],
        extras: [(type: Int, value: [UInt8])], to payload: inout DEREncoder
    ) {
        payload.constructed(DEREncoder.set) { set in
            for entry in ordered {
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
        typealias T = AppReceiptAttributeType
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

/// A minimal DER writer. `encode` runs the writing code twice: a first pass only measures the
/// contents of every element (in the order they open), so the second writes each length before
/// its contents, straight into a buffer of the exact final size: no shifting, one allocation.
struct DEREncoder {
    static let integerTag: UInt8 = 0x02
    static let octetString: UInt8 = 0x04
    static let objectIdentifier: UInt8 = 0x06
    static let utf8String: UInt8 = 0x0C
    static let ia5String: UInt8 = 0x16
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let contextZero: UInt8 = 0xA0

    private let measuring: Bool
    /// Bytes so far (in both passes).
    private var count = 0
    /// Contents length of each element, in the order the elements open.
    private var lengths: [Int] = []
    private var nextLength = 0
    private(set) var bytes: [UInt8] = []

    private init(measuring: Bool) {
        self.measuring = measuring
    }

    /// The DER that `body` writes. `body` must write the same thing each time it is called.
    static func encode(_ body: (inout DEREncoder) -> Void) -> [UInt8] {
        var measure = DEREncoder(measuring: true)
        body(&measure)
        var write = DEREncoder(measuring: false)
        write.lengths = measure.lengths
        write.bytes.reserveCapacity(measure.count)
        body(&write)
        return write.bytes
    }

    /// An element whose contents `body` writes (`tag` already carries the constructed bit).
    mutating func constructed(_ tag: UInt8, _ body: (inout DEREncoder) -> Void) {
        wrapped(tag, body)
    }

    /// Any element whose contents `body` writes, e.g. an OCTET STRING holding DER.
    mutating func wrapped(_ tag: UInt8, _ body: (inout DEREncoder) -> Void) {
        if measuring {
            let index = lengths.count
            lengths.append(0)
            let start = count
            body(&self)
            let length = count - start
            lengths[index] = length
            count += 1 + Self.lengthOfLength(length)
        } else {
            let length = lengths[nextLength]
            nextLength += 1
            bytes.append(tag)
            count += 1
            appendLength(length)
            body(&self)
        }
    }

    mutating func primitive(_ tag: UInt8, _ contents: [UInt8]) {
        wrapped(tag) { $0.append(contents) }
    }

    mutating func string(_ tag: UInt8, _ text: String) {
        wrapped(tag) { encoder in
            if encoder.measuring {
                encoder.count += text.utf8.count
            } else {
                encoder.bytes.append(contentsOf: text.utf8)
                encoder.count += text.utf8.count
            }
        }
    }

    mutating func append(_ contents: [UInt8]) {
        if !measuring { bytes.append(contentsOf: contents) }
        count += contents.count
    }

    /// A two's-complement INTEGER in the fewest bytes.
    mutating func integer(_ value: Int64) {
        var length = 8
        while length > 1 {
            let top = UInt8(truncatingIfNeeded: value >> ((length - 1) * 8))
            let next = UInt8(truncatingIfNeeded: value >> ((length - 2) * 8))
            // The top byte is redundant when it only repeats the next byte's sign bit.
            guard (top == 0 && next & 0x80 == 0) || (top == 0xFF && next & 0x80 != 0) else { break }
            length -= 1
        }
        count += 2 + length
        guard !measuring else { return }
        bytes.append(Self.integerTag)
        bytes.append(UInt8(length))
        appendLowBytes(UInt64(bitPattern: value), count: length)
    }

    /// Appends the low `count` bytes of `value`, most significant first, in one go.
    private mutating func appendLowBytes(_ value: UInt64, count: Int) {
        withUnsafeBytes(of: value.bigEndian) { word in
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: word[(8 - count)...]))
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

    /// Bytes of a definite length's encoding (1 below 128, else 1 + the length's own bytes).
    private static func lengthOfLength(_ length: Int) -> Int {
        guard length >= 0x80 else { return 1 }
        return 1 + (Int.bitWidth - length.leadingZeroBitCount + 7) / 8
    }

    private mutating func appendLength(_ length: Int) {
        count += Self.lengthOfLength(length)
        guard length >= 0x80 else {
            bytes.append(UInt8(length))
            return
        }
        let byteCount = (Int.bitWidth - length.leadingZeroBitCount + 7) / 8
        bytes.append(0x80 | UInt8(byteCount))
        appendLowBytes(UInt64(length), count: byteCount)
    }
}
