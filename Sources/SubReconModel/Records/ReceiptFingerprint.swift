import Crypto

/// Digests of receipt data: SHA-256 to recognise a receipt imported again (now or before Apple's
/// `latest_receipt` replaced it), and a short prefix of it to name a receipt in debug logs
/// without ever logging the receipt itself.
public enum ReceiptFingerprint {
    public static func sha256Hex(_ receiptData: String) -> String {
        // Hash the string's own UTF-8 storage and format through a table: the Data copy and
        // per-byte String(radix:) + joined() cost more than the hash itself (~4.4 KB receipts).
        var text = receiptData
        return hex(text.withUTF8 { SHA256.hash(data: $0) })
    }

    /// The same digest of any bytes (a sales report file as Apple sent it).
    public static func sha256Hex(bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    private static func hex(_ digest: SHA256.Digest) -> String {
        String(unsafeUninitializedCapacity: 2 * SHA256.byteCount) { out in
            var index = 0
            for byte in digest {
                out[index] = hexDigits[Int(byte >> 4)]
                out[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// The first 12 hex digits of the SHA-256: enough to tell receipts apart in a log.
    public static func short(_ receiptData: String) -> String { String(sha256Hex(receiptData).prefix(12)) }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
