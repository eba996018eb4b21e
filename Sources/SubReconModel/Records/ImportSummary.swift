/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    /// Receipts stored as new.
    public var imported: Int
    /// Rows whose receipt data the user already had (now, or before Apple's `latest_receipt` replaced it).
    public var alreadyStored: Int
    /// Of those, receipts stored before without an app that this import named (a deployment
    /// moving to several apps imports its receipts again with `bundle_id`).
    public var appNamed: Int = 0
    /// App account tokens registered for their users (new ones; a token stored before is not counted).
    public var tokensRegistered: Int = 0

    package init(imported: Int, alreadyStored: Int, appNamed: Int = 0) {
        self.imported = imported
        self.alreadyStored = alreadyStored
        self.appNamed = appNamed
    }
}

extension ImportRow {
    /// The key of `receipt_versions` for this row: the SHA-256 of its receipt data, or of its
    /// transaction id when it has only that (so importing it again is a no-op too).
    package var versionDigest: String {
        ReceiptFingerprint.sha256Hex(receiptData.isEmpty ? "transaction_id:" + (transactionID ?? "") : receiptData)
    }
}
