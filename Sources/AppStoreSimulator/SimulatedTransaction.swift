/// One subscription period as the simulator computed it at some "now"; rendered as an entry of
/// `latest_receipt_info` / `receipt.in_app`.
struct SimulatedTransaction: Sendable, Hashable {
    /// 0 for the original purchase, then 1, 2, … for each later transaction of the same subscription.
    var index: Int64
    var productID: String
    var purchaseMs: Int64
    var expiresMs: Int64
    var isTrial: Bool
    var cancellationMs: Int64?
    /// `"1"` refund with a problem cited, `"0"` other reason (upgrades).
    var cancellationReason: String?
    var isUpgraded: Bool

    init(index: Int64, productID: String, purchaseMs: Int64, expiresMs: Int64, isTrial: Bool = false) {
        self.index = index
        self.productID = productID
        self.purchaseMs = purchaseMs
        self.expiresMs = expiresMs
        self.isTrial = isTrial
        self.cancellationMs = nil
        self.cancellationReason = nil
        self.isUpgraded = false
    }
}
