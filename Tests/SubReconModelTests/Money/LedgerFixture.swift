@testable import SubReconModel

/// Builds ledger rows and instants for the money tests, with readable dates.
enum LedgerFixture {
    static let day: Int64 = 86_400_000

    /// `2026-11-26` or `2026-11-26T12:00Z` → epoch ms (the test data is always valid).
    static func ms(_ text: String) -> Int64 {
        guard let value = ISO8601.milliseconds(from: text) else { fatalError("bad test date \(text)") }
        return value
    }

    /// A paid, payer-owned production row unless told otherwise.
    static func row(
        _ otid: String, _ product: String = "pro.monthly", from purchase: String?, to expires: String,
        price: Int64? = 9990, currency: String? = "USD", offer: String? = nil, reason: String? = nil,
        cancelled: String? = nil, refund: Int64? = 0, upgraded: Bool = false,
        ownership: String? = "PURCHASED", environment: String? = "Production"
    ) -> LedgerEntry {
        LedgerEntry(
            originalTransactionID: otid, productID: product, purchaseDateMs: purchase.map(ms), expiresDateMs: ms(expires),
            cancellationDateMs: cancelled.map(ms), isUpgraded: upgraded, priceMilliunits: price, currency: currency,
            offerDiscountType: offer, transactionReason: reason, ownershipType: ownership, environment: environment,
            refundMilliunits: refund)
    }
}
