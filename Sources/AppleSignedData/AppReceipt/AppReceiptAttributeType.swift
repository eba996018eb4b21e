/// Receipt attribute types (Apple's 'Receipt Fields' page: ASN.1 field types) that the reader and
/// the writer use.
enum AppReceiptAttributeType {
    static let bundleID: Int64 = 2
    static let inAppPurchase: Int64 = 17
    static let productID: Int64 = 1702
    static let transactionID: Int64 = 1703
    static let originalTransactionID: Int64 = 1705
    static let expiresDate: Int64 = 1708
    static let webOrderLineItemID: Int64 = 1711
}
