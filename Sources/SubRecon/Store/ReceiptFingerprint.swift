import Crypto
import Foundation

/// Digests of receipt data: SHA-256 to recognise a receipt imported again (now or before Apple's
/// `latest_receipt` replaced it), and a short prefix of it to name a receipt in debug logs
/// without ever logging the receipt itself.
public enum ReceiptFingerprint {
    public static func sha256Hex(_ receiptData: String) -> String {
        let digest = SHA256.hash(data: Data(receiptData.utf8))
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The first 12 hex digits of the SHA-256: enough to tell receipts apart in a log.
    public static func short(_ receiptData: String) -> String { String(sha256Hex(receiptData).prefix(12)) }
}
