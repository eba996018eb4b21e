import Foundation

/// Encodes a `SimulatedSubscriber` as receipt data (what subrecon stores and sends as
/// `receipt-data`) and back.
///
/// Format: standard base64, with padding, of `marker + compact JSON + "\n" + filler bytes`.
/// The filler only gives the receipt a realistic size (real receipts are several KB of base64).
public enum SimulatedReceipt {
    /// Bytes every simulated receipt starts with (before base64); anything else answers 21002.
    static let marker: [UInt8] = Array("SUBRECON-SIMULATED-RECEIPT/1\n".utf8)
    private static let newline = UInt8(ascii: "\n")

    /// The base64 receipt data for `subscriber`. Deterministic: equal subscribers give equal strings.
    public static func encode(_ subscriber: SimulatedSubscriber) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain stored properties of these types cannot fail.
        let json = (try? encoder.encode(subscriber)) ?? Data("{}".utf8)
        var raw = [UInt8]()
        raw.reserveCapacity(marker.count + json.count + 1 + max(0, subscriber.paddingBytes))
        raw.append(contentsOf: marker)
        raw.append(contentsOf: json)
        raw.append(newline)
        appendPadding(count: subscriber.paddingBytes, seed: subscriber.id, to: &raw)
        return Data(raw).base64EncodedString()
    }

    /// The subscriber inside `receiptData`, or nil when it is not base64 of a simulator receipt.
    public static func decode(_ receiptData: String) -> SimulatedSubscriber? {
        guard let raw = Data(base64Encoded: receiptData) else { return nil }
        return raw.withUnsafeBytes { buffer -> SimulatedSubscriber? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            guard bytes.count > marker.count, bytes.starts(with: marker) else { return nil }
            let jsonStart = marker.count
            guard let jsonEnd = bytes[jsonStart...].firstIndex(of: newline) else { return nil }
            let json = Data(bytes[jsonStart..<jsonEnd])
            return try? JSONDecoder().decode(SimulatedSubscriber.self, from: json)
        }
    }

    /// Pseudo-random filler so the base64 looks like a real (binary, PKCS#7) receipt.
    private static func appendPadding(count: Int, seed: Int64, to raw: inout [UInt8]) {
        guard count > 0 else { return }
        var generator = SplitMix64(seed: seed)
        var remaining = count
        while remaining > 0 {
            let word = generator.next().littleEndian
            let take = min(8, remaining)
            withUnsafeBytes(of: word) { raw.append(contentsOf: $0.prefix(take)) }
            remaining -= take
        }
    }
}
