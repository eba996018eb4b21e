/// One row of the money ledger (a billed period, as `report renewals` lists it), as the revenue
/// and metrics reports read it.
public struct LedgerEntry: Sendable, Equatable {
    public var originalTransactionID: String
    public var productID: String
    public var purchaseDateMs: Int64?
    public var expiresDateMs: Int64
    public var cancellationDateMs: Int64?
    public var isUpgraded: Bool
    public var priceMilliunits: Int64?  // nil = unknown
    public var currency: String?  // nil/empty = unknown
    public var offerDiscountType: String?
    public var transactionReason: String?
    public var ownershipType: String?
    public var environment: String?  // "Production" / "Sandbox"
    public var refundMilliunits: Int64?  // as stored (computed by RefundAmount at write time)
    /// Read for `report apple-parity` only (the money reports leave them nil): Apple's storefront
    /// (ISO 3166-1 alpha-3) and revocation type.
    public var storefront: String?
    public var revocationType: String?

    public init(
        originalTransactionID: String, productID: String, purchaseDateMs: Int64?, expiresDateMs: Int64,
        cancellationDateMs: Int64?, isUpgraded: Bool, priceMilliunits: Int64?, currency: String?,
        offerDiscountType: String?, transactionReason: String?, ownershipType: String?, environment: String?,
        refundMilliunits: Int64?, storefront: String? = nil, revocationType: String? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.cancellationDateMs = cancellationDateMs
        self.isUpgraded = isUpgraded
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.offerDiscountType = offerDiscountType
        self.transactionReason = transactionReason
        self.ownershipType = ownershipType
        self.environment = environment
        self.refundMilliunits = refundMilliunits
        self.storefront = storefront
        self.revocationType = revocationType
    }
}

extension LedgerEntry {
    /// Whether the money reports count this row for `environment`: payer-owned (`PURCHASED`, or
    /// empty where Apple did not say; family-shared periods are nobody's revenue, and an ownership
    /// value the contract does not name is not known to be the payer's) and in that environment.
    /// A row without an environment counts as `Production`: Apple labels everything sandbox, so an
    /// unlabelled row is production data whose source did not say (e.g. seen only through
    /// verifyReceipt), and dropping it would make its period silently disappear.
    package func counts(in environment: String) -> Bool {
        switch ownershipType {
        case nil, "", "PURCHASED": break
        default: return false
        }
        let own = self.environment ?? ""
        return own.isEmpty ? environment == "Production" : own == environment
    }

    /// Whether the price is known: a price (never negative: that is malformed) with a currency.
    /// "A price without a currency is an unknown price."
    package var hasKnownPrice: Bool {
        guard let price = priceMilliunits, price >= 0, let currency else { return false }
        return !currency.isEmpty
    }

    /// The `currency` column for this row: Apple's code, or empty when Apple gave none.
    package var currencyColumn: String { currency ?? "" }

    package var isFreeTrial: Bool { offerDiscountType == "FREE_TRIAL" }

    /// Entries in purchase order (nil first), keeping the given order among equal dates; the
    /// input is usually sorted already, and then it is returned as is.
    package static func inPurchaseOrder(_ entries: [LedgerEntry]) -> [LedgerEntry] {
        func precedes(_ lhs: Int64?, _ rhs: Int64?) -> Bool {
            switch (lhs, rhs) {
            case (nil, nil), (_?, nil): false
            case (nil, _?): true
            case let (l?, r?): l < r
            }
        }
        var sorted = true
        for index in entries.indices.dropFirst()
        where precedes(entries[index].purchaseDateMs, entries[index - 1].purchaseDateMs) {
            sorted = false
            break
        }
        if sorted { return entries }
        // Stable: equal dates keep their order (the later one governs in metrics).
        return entries.enumerated().sorted { lhs, rhs in
            if precedes(lhs.element.purchaseDateMs, rhs.element.purchaseDateMs) { return true }
            if precedes(rhs.element.purchaseDateMs, lhs.element.purchaseDateMs) { return false }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
