import AppleSignedData

/// Encodes a `SimulatedSubscriber` as receipt data (what subrecon stores and sends as
/// `receipt-data`) and back.
///
/// Format 3: standard base64, with padding, of a real (unsigned) PKCS#7 app receipt written by
/// `AppReceiptWriter`, so the App Store Server API mode can read transaction ids from it like from
/// Apple's. Its attributes, in this order:
/// - 2 `bundle_id`: the account's `bundleID`, else `SimulatedProducts.bundleID`;
/// - 4 (Apple's "opaque value"): `marker` + the account text (see `SimulatedAccountText`), raw
///   bytes. This is what the simulator reads back; the marker's version changes whenever the
///   format does, so older receipts (format 2 was base64 of marker + text, not PKCS#7) answer 21002;
/// - 17, one in-app record per subscription (its original purchase: 1702 product, 1703 and 1705
///   the original transaction id, 1708 the end of the first period, 1711 its web order line item
///   id), then one for the consumable (no 1708), as `receipt.in_app` of the verifyReceipt answer;
/// - `fillerType` (a private number): `paddingBytes` pseudo-random bytes from the subscriber id,
///   which only give the receipt a realistic size (real receipts are several KB of base64).
///
/// Decoding checks the whole string is canonical base64, that the container's outer length
/// matches it and that it ends with a filler attribute of the account's `paddingBytes`, but
/// decodes only the start of the base64 (up to the end of attribute 4) and the filler's header.
public enum SimulatedReceipt {
    /// Bytes every account attribute starts with; anything else answers 21002.
    static let marker: [UInt8] = Array("SUBRECON-SIMULATED-RECEIPT/3\n".utf8)
    /// Receipt attribute holding the marker and the account text (Apple's "opaque value").
    static let accountType = 4
    /// Receipt attribute holding the filler: a private number, far above Apple's types.
    static let fillerType = 10_000
    /// Groups decoded at a time while walking to the account attribute: 64 groups are 192 bytes,
    /// enough for the container's header, the bundle id and a one-subscription account.
    private static let decodeChunkGroups = 64

    /// The base64 receipt data for `subscriber`. Deterministic: equal subscribers give equal strings.
    public static func encode(_ subscriber: SimulatedSubscriber) -> String {
        var base64: [UInt8] = []
        appendEncoded(subscriber, to: &base64)
        return String(decoding: base64, as: UTF8.self)
    }

    /// Appends what `encode` returns, as ASCII bytes (lets an answer embed `latest_receipt`
    /// without building a `String` and escaping it again).
    static func appendEncoded(_ subscriber: SimulatedSubscriber, to output: inout [UInt8]) {
        let raw = receiptBytes(subscriber)
        output.reserveCapacity(output.count + Base64Codec.encodedCount(of: raw.count))
        raw.withUnsafeBytes { Base64Codec.encode($0, appendingTo: &output) }
    }

    /// The PKCS#7 app receipt of `subscriber`, before base64.
    static func receiptBytes(_ subscriber: SimulatedSubscriber) -> [UInt8] {
        var account: [UInt8] = []
        account.reserveCapacity(marker.count + 256)
        account.append(contentsOf: marker)
        SimulatedAccountText.write(subscriber, to: &account)
        return AppReceiptWriter.receipt(
            bundleID: subscriber.bundleID ?? SimulatedProducts.bundleID,
            purchases: purchases(of: subscriber),
            extraAttributes: [
                (type: accountType, value: account),
                (type: fillerType, value: filler(count: max(0, subscriber.paddingBytes), seed: subscriber.id)),
            ])
    }

    /// The receipt's in-app records: each subscription's original purchase, then the consumable.
    static func purchases(of subscriber: SimulatedSubscriber) -> [AppReceiptPurchase] {
        var purchases: [AppReceiptPurchase] = []
        purchases.reserveCapacity(subscriber.subscriptions.count + 1)
        for (slot, subscription) in subscriber.subscriptions.enumerated() {
            let originalID = String(SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: slot, index: 0))
            purchases.append(AppReceiptPurchase(
                productID: subscription.productID,
                transactionID: originalID,
                originalTransactionID: originalID,
                expiresDate: rfc3339(firstPeriodEndMs(subscription)),
                webOrderLineItemID: SimulatedIdentifiers.webOrderLineItemID(subscriberID: subscriber.id, slot: slot, index: 0)))
        }
        let consumableID = String(SimulatedIdentifiers.transactionID(
            subscriberID: subscriber.id, slot: SimulatedIdentifiers.consumableSlot, index: 0))
        purchases.append(AppReceiptPurchase(
            productID: SimulatedProducts.coins100, transactionID: consumableID, originalTransactionID: consumableID))
        return purchases
    }

    /// End of the first period, as `SubscriptionTimeline` computes it (the trial or intro offer when there is one).
    static func firstPeriodEndMs(_ subscription: SimulatedSubscription) -> Int64 {
        let length = SubscriptionTimeline.firstPeriodLength(of: subscription)
        let (end, overflow) = subscription.firstPurchaseMs.addingReportingOverflow(length)
        return overflow ? .max : end
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the form app receipts use for dates.
    static func rfc3339(_ ms: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(28)
        AppleDateFormat.appendUTC(ms, to: &bytes)  // "yyyy-MM-dd HH:mm:ss Etc/GMT"
        bytes.removeLast(bytes.count - 19)
        bytes[10] = UInt8(ascii: "T")
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The subscriber inside `receiptData`, or nil when it is not base64 of a simulator receipt.
    public static func decode(_ receiptData: String) -> SimulatedSubscriber? {
        var receiptData = receiptData
        return receiptData.withUTF8(decode(base64:))
    }

    /// Checks the whole string is base64, but decodes only up to the end of the account attribute.
    private static func decode(base64 text: UnsafeBufferPointer<UInt8>) -> SimulatedSubscriber? {
        guard let totalCount = Base64Codec.decodedCount(text) else { return nil }
        var reader = PrefixReader(text: text, totalCount: totalCount, chunkGroups: decodeChunkGroups)
        guard let account = reader.accountAttribute(type: accountType),
              account.count > marker.count,
              reader.raw[account.lowerBound..<account.lowerBound + marker.count].elementsEqual(marker)
        else { return nil }
        guard let subscriber = reader.raw.withUnsafeBufferPointer({
            SimulatedAccountText.parse(UnsafeBufferPointer(rebasing: $0[(account.lowerBound + marker.count)..<account.upperBound]))
        }) else { return nil }
        // The filler must be the last attribute, exactly `paddingBytes` long, followed only by the
        // empty signerInfos that end the container.
        let fillerCount = max(0, subscriber.paddingBytes)
        let header = fillerHeader(count: fillerCount)
        let fillerEnd = totalCount - emptySignerInfos.count
        let fillerStart = fillerEnd - fillerCount
        guard fillerStart - header.count >= account.upperBound,
              reader.bytes(in: fillerEnd..<totalCount) == emptySignerInfos,
              reader.bytes(in: (fillerStart - header.count)..<fillerStart) == header
        else { return nil }
        return subscriber
    }

    /// The last bytes of every receipt `AppReceiptWriter` writes: an empty SET.
    private static let emptySignerInfos: [UInt8] = [0x31, 0x00]

    /// The DER before the filler's bytes: `SEQUENCE { INTEGER fillerType, INTEGER 1, OCTET STRING`.
    static func fillerHeader(count: Int) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            guard count >= 0x80 else { return [UInt8(count)] }
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
                rest >>= 8
            }
            return [0x80 | UInt8(bytes.count)] + bytes
        }
        let octetHeader = [0x04] + length(count)
        let fields: [UInt8] = [0x02, 0x02, UInt8(fillerType >> 8), UInt8(fillerType & 0xFF), 0x02, 0x01, 0x01] + octetHeader
        return [0x30] + length(fields.count + count) + fields
    }

    /// Pseudo-random filler so the base64 looks like a real (binary, signed) receipt.
    private static func filler(count: Int, seed: Int64) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            var generator = SplitMix64(seed: seed)
            var offset = 0
            while offset < buffer.count {
                let word = generator.next().littleEndian
                let take = min(8, buffer.count - offset)
                withUnsafeBytes(of: word) { word in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + take])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: word[..<take]))
                }
                offset += take
            }
        }
        return bytes
    }
}

/// Walks the DER that `AppReceiptWriter` writes while base64-decoding only as much of the
/// receipt as the walk needs. Strict: anything else (BER forms, other layouts) is nil, which is
/// fine because it only has to read the simulator's own receipts.
private struct PrefixReader {
    let text: UnsafeBufferPointer<UInt8>
    let totalCount: Int
    let chunkGroups: Int
    private(set) var raw: [UInt8] = []
    private var decodedGroups = 0

    /// 1.2.840.113549.1.7.2 (signedData) and 1.2.840.113549.1.7.1 (data), content octets.
    private static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    private static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    init(text: UnsafeBufferPointer<UInt8>, totalCount: Int, chunkGroups: Int) {
        self.text = text
        self.totalCount = totalCount
        self.chunkGroups = chunkGroups
        raw.reserveCapacity(3 * chunkGroups)
    }

    /// Decodes base64 until the first `count` bytes are available; false past the end.
    private mutating func need(_ count: Int) -> Bool {
        guard count <= totalCount else { return false }
        let groupCount = text.count / 4
        while raw.count < count, decodedGroups < groupCount {
            let wanted = (count - raw.count + 2) / 3
            let end = min(groupCount, decodedGroups + max(chunkGroups, wanted))
            Base64Codec.decode(text, groups: decodedGroups..<end, appendingTo: &raw)
            decodedGroups = end
        }
        return raw.count >= count
    }

    /// The bytes in `range`, decoded on their own (no need to decode what lies before them).
    func bytes(in range: Range<Int>) -> [UInt8] {
        guard range.lowerBound >= 0, range.upperBound <= totalCount, !range.isEmpty else { return [] }
        let firstGroup = range.lowerBound / 3
        let endGroup = (range.upperBound + 2) / 3
        var decoded: [UInt8] = []
        decoded.reserveCapacity(3 * (endGroup - firstGroup))
        Base64Codec.decode(text, groups: firstGroup..<endGroup, appendingTo: &decoded)
        let start = range.lowerBound - 3 * firstGroup
        return Array(decoded[start..<start + range.count])
    }

    /// Reads the header of the element at `offset` with tag `tag`: the range of its contents.
    private mutating func element(_ tag: UInt8, at offset: Int, within end: Int) -> Range<Int>? {
        guard offset < end, need(offset + 2), raw[offset] == tag else { return nil }
        var contentStart = offset + 2
        var length = Int(raw[offset + 1])
        if length >= 0x80 {
            let lengthBytes = length & 0x7F
            guard (1...4).contains(lengthBytes), need(offset + 2 + lengthBytes) else { return nil }
            length = 0
            for index in 0..<lengthBytes {
                length = length << 8 | Int(raw[offset + 2 + index])
            }
            contentStart += lengthBytes
        }
        let contentEnd = contentStart + length
        guard contentEnd <= end else { return nil }
        return contentStart..<contentEnd
    }

    /// An element whose contents must equal `expected` (an object identifier).
    private mutating func fixed(_ tag: UInt8, _ expected: [UInt8], at offset: Int, within end: Int) -> Int? {
        guard let contents = element(tag, at: offset, within: end), need(contents.upperBound),
              raw[contents].elementsEqual(expected)
        else { return nil }
        return contents.upperBound
    }

    /// The value range of the first receipt attribute of type `type`, decoded; nil unless the
    /// bytes are a ContentInfo/SignedData exactly as long as the receipt and holding one.
    mutating func accountAttribute(type: Int) -> Range<Int>? {
        guard let contentInfo = element(0x30, at: 0, within: totalCount), contentInfo.upperBound == totalCount,
              let afterType = fixed(0x06, Self.signedDataOID, at: contentInfo.lowerBound, within: totalCount),
              let explicit = element(0xA0, at: afterType, within: contentInfo.upperBound),
              let signedData = element(0x30, at: explicit.lowerBound, within: explicit.upperBound),
              let version = element(0x02, at: signedData.lowerBound, within: signedData.upperBound),
              let digests = element(0x31, at: version.upperBound, within: signedData.upperBound),
              let encapsulated = element(0x30, at: digests.upperBound, within: signedData.upperBound),
              let afterDataType = fixed(0x06, Self.dataOID, at: encapsulated.lowerBound, within: encapsulated.upperBound),
              let eContent = element(0xA0, at: afterDataType, within: encapsulated.upperBound),
              let octets = element(0x04, at: eContent.lowerBound, within: eContent.upperBound),
              let attributes = element(0x31, at: octets.lowerBound, within: octets.upperBound)
        else { return nil }
        var offset = attributes.lowerBound
        while offset < attributes.upperBound {
            guard let attribute = element(0x30, at: offset, within: attributes.upperBound),
                  let typeField = element(0x02, at: attribute.lowerBound, within: attribute.upperBound),
                  let versionField = element(0x02, at: typeField.upperBound, within: attribute.upperBound),
                  let value = element(0x04, at: versionField.upperBound, within: attribute.upperBound),
                  typeField.count <= 2
            else { return nil }
            var attributeType = 0
            for index in typeField { attributeType = attributeType << 8 | Int(raw[index]) }
            if attributeType == type {
                return need(value.upperBound) ? value : nil
            }
            offset = attribute.upperBound
        }
        return nil
    }
}
