/// Anything that generates receipt `index` deterministically (and cheaply enough to run on every core).
protocol ReceiptSource: Sendable {
    func row(_ index: Int64) -> ReceiptRow
}

/// One generated row for `receipts`.
struct ReceiptRow: Sendable {
    var userID: String
    var receiptData: String
    var productID: String?
    /// The app the receipt was bought in, when the source spreads receipts over several apps.
    var bundleID: String? = nil
}
