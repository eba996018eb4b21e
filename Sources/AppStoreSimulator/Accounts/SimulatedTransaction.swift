/// One subscription period as the simulator computed it at some "now"; rendered as an entry of
/// `latest_receipt_info` / `receipt.in_app`.
struct SimulatedTransaction: Sendable, Hashable {
    /// 0 for the original purchase, then 1, 2, … for each later transaction of the same subscription.
    var index: Int64
    var productID: String
    var purchaseMs: Int64
    var expiresMs: Int64
    var isTrial: Bool
    /// A pay-up-front introductory offer (`is_in_intro_offer_period` "true"), priced by
    /// `SimulatedPriceTable.introPriceMilliunits`.
    var isIntroOffer: Bool
    var cancellationMs: Int64?
    /// `"1"` refund with a problem cited, `"0"` other reason (upgrades).
    var cancellationReason: String?
    var isUpgraded: Bool
    /// For a prorated refund, the share given back in milli-percent; nil for a full refund, an
    /// upgrade, or nothing revoked.
    var refundPercentage: Int64?
    /// When Apple reversed a refund of this transaction (it then has no cancellation): the
    /// history lists the transaction again from this time, as it changed then.
    var refundReversedMs: Int64?

    init(
        index: Int64, productID: String, purchaseMs: Int64, expiresMs: Int64, isTrial: Bool = false,
        isIntroOffer: Bool = false
    ) {
        self.index = index
        self.productID = productID
        self.purchaseMs = purchaseMs
        self.expiresMs = expiresMs
        self.isTrial = isTrial
        self.isIntroOffer = isIntroOffer
        self.cancellationMs = nil
        self.cancellationReason = nil
        self.isUpgraded = false
        self.refundPercentage = nil
        self.refundReversedMs = nil
    }

    /// The signed transaction's `revocationType`: nil when nothing was revoked or an upgrade
    /// revoked it (Apple gives an upgrade's revocation no type: no refund), `REFUND_PRORATED`
    /// when only `refundPercentage` was given back, else `REFUND_FULL`.
    var revocationType: String? {
        guard cancellationMs != nil, !isUpgraded else { return nil }
        return refundPercentage == nil ? "REFUND_FULL" : "REFUND_PRORATED"
    }

    /// When the transaction last changed: its purchase, or the refund, upgrade or reversal since.
    var modifiedMs: Int64 { cancellationMs ?? refundReversedMs ?? purchaseMs }
}
