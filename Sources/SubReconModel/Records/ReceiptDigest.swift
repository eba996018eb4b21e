/// Apple's `latest_receipt` and its SHA-256 (the key of `receipt_versions`), computed beside the
/// answer's decoding, concurrently, so the one SQLite writer only stores it: hashed on the writer,
/// every write would wait behind it (docs/performance.md, "Earlier figures behind the code's
/// choices").
public struct ReceiptDigest: Sendable, Equatable {
    public var data: String
    public var sha256Hex: String

    public init(data: String) {
        self.data = data
        sha256Hex = ReceiptFingerprint.sha256Hex(data)
    }

    /// The digest of the answer's `latest_receipt` when it differs from the receipt sent (only then
    /// is it stored); nil otherwise.
    public init?(latestReceiptOf outcome: VerificationOutcome, sent: ReceiptToVerify) {
        guard case .answered(let account) = outcome, let latest = account.replacementReceipt,
            latest != sent.receiptData
        else { return nil }
        self.init(data: latest)
    }
}

extension ReceiptDigest {
    /// The SHA-256 of `data`: the precomputed digest when it is of these very bytes (a digest of
    /// other data would key a wrong version), else computed now.
    package static func sha256Hex(of data: String, precomputed: ReceiptDigest?) -> String {
        precomputed.flatMap { $0.data == data ? $0.sha256Hex : nil } ?? ReceiptFingerprint.sha256Hex(data)
    }
}
