import SubReconModel

/// Receipts and app account tokens coming in (`subrecon import`, a notification's token).
public protocol ImportStore: Sendable {
    /// Stores validated import rows in one transaction: all of them or none.
    func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary
    /// The user `token` was registered for, when no stored receipt or subscription knows the
    /// original transaction `otid` yet (nil otherwise).
    func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String?
}
