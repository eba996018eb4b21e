/// One generated row for `receipts`.
struct ReceiptRow: Sendable {
    var userID: String
    var receiptData: String
    var productID: String?
}
