/// Encodes a `SimulatedSubscriber` as receipt data (what subrecon stores and sends as
/// `receipt-data`) and back.
///
/// Format: standard base64, with padding, of `marker + account text + "\n" + filler bytes`
/// (see `SimulatedAccountText`). The filler only gives the receipt a realistic size (real
/// receipts are several KB of base64); it is pseudo-random from the subscriber id, and only its
/// length is checked on decoding. The marker's version changes whenever the text format does.
public enum SimulatedReceipt {
    /// Bytes every simulated receipt starts with (before base64); anything else answers 21002.
    static let marker: [UInt8] = Array("SUBRECON-SIMULATED-RECEIPT/2\n".utf8)
    private static let newline = UInt8(ascii: "\n")
    /// Groups decoded at a time while looking for the end of the account text: 64 groups are
    /// 192 bytes, enough for the marker and a one-subscription account in one step.
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
        let fillerCount = max(0, subscriber.paddingBytes)
        var raw: [UInt8] = []
        raw.reserveCapacity(marker.count + 256 + fillerCount)
        raw.append(contentsOf: marker)
        SimulatedAccountText.write(subscriber, to: &raw)
        raw.append(newline)
        appendFiller(count: fillerCount, seed: subscriber.id, to: &raw)
        output.reserveCapacity(output.count + Base64Codec.encodedCount(of: raw.count))
        raw.withUnsafeBytes { Base64Codec.encode($0, appendingTo: &output) }
    }

    /// The subscriber inside `receiptData`, or nil when it is not base64 of a simulator receipt.
    public static func decode(_ receiptData: String) -> SimulatedSubscriber? {
        var receiptData = receiptData
        return receiptData.withUTF8(decode(base64:))
    }

    /// Checks the whole string is base64, but decodes only up to the end of the account text.
    private static func decode(base64 text: UnsafeBufferPointer<UInt8>) -> SimulatedSubscriber? {
        guard let totalCount = Base64Codec.decodedCount(text), totalCount > marker.count else { return nil }
        let groupCount = text.count / 4
        var raw: [UInt8] = []
        raw.reserveCapacity(3 * decodeChunkGroups)
        var decodedGroups = 0
        var textEnd: Int?
        while textEnd == nil, decodedGroups < groupCount {
            let searchStart = max(raw.count, marker.count)
            let chunkEnd = min(groupCount, decodedGroups + decodeChunkGroups)
            Base64Codec.decode(text, groups: decodedGroups..<chunkEnd, appendingTo: &raw)
            decodedGroups = chunkEnd
            // The first chunk always covers the marker (totalCount > marker.count).
            guard raw.starts(with: marker) else { return nil }
            if searchStart < raw.count {
                textEnd = raw[searchStart...].firstIndex(of: newline)
            }
        }
        guard let textEnd,
              let subscriber = raw.withUnsafeBufferPointer({
                  SimulatedAccountText.parse(UnsafeBufferPointer(rebasing: $0[marker.count..<textEnd]))
              }),
              totalCount == textEnd + 1 + max(0, subscriber.paddingBytes)
        else { return nil }
        return subscriber
    }

    /// Pseudo-random filler so the base64 looks like a real (binary, PKCS#7) receipt.
    private static func appendFiller(count: Int, seed: Int64, to raw: inout [UInt8]) {
        guard count > 0 else { return }
        let start = raw.count
        raw.append(contentsOf: repeatElement(0, count: count))
        raw.withUnsafeMutableBytes { buffer in
            var generator = SplitMix64(seed: seed)
            var offset = start
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
    }
}
