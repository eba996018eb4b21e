/// What a page of receipts to verify carries besides the receipt itself: the App Store Server API
/// client also needs the stored transaction ids and history revision (`ReceiptToVerify.serverAPI`),
/// which verifyReceipt never reads, so its pages skip that lookup.
public enum ReceiptDetail: Sendable, Equatable {
    case receiptOnly
    case withServerAPIContext
}
