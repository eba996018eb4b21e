/// A billed period as an event's `period`: exactly the `report renewals` columns as keys, in its
/// order; integers and booleans typed, the readable dates and amounts as the report writes them.
public enum EventPeriodObject {
    public static let keys = [
        "transaction_id", "original_transaction_id", "web_order_line_item_id", "user_id", "product_id",
        "purchase_date_ms", "expires_date_ms", "cancellation_date_ms", "is_trial_period", "is_in_intro_offer_period",
        "first_seen_run_id", "price_milliunits", "currency", "storefront", "offer_type", "offer_discount_type",
        "offer_period", "transaction_reason", "ownership_type", "environment", "revocation_type",
        "revocation_percentage", "refund_milliunits", "bundle_id", "purchase_date", "expires_date", "price", "refund",
    ]

    public static func json(_ r: RenewalRecord, bundleID: String?) -> EventJSON {
        func amount(_ milliunits: Int64?) -> EventJSON {
            guard let milliunits, let currency = r.currency, !currency.isEmpty else { return .null }
            return .string(MoneyText.text(milliunits: milliunits, currency: currency))
        }
        let values: [EventJSON] = [
            .string(r.transactionID), .string(r.originalTransactionID), .optional(r.webOrderLineItemID), .string(r.userID),
            .string(r.productID), .optional(r.purchaseDateMs), .integer(r.expiresDateMs), .optional(r.cancellationDateMs),
            .boolean(r.isTrialPeriod), .boolean(r.isInIntroOfferPeriod), .optional(r.firstSeenRunID),
            .optional(r.priceMilliunits), .optional(r.currency), .optional(r.storefront), .optional(r.offerType),
            .optional(r.offerDiscountType), .optional(r.offerPeriod), .optional(r.transactionReason),
            .optional(r.ownershipType), .optional(r.environment), .optional(r.revocationType),
            .optional(r.revocationPercentage), .optional(r.refundMilliunits), .optional(bundleID),
            .optional(r.purchaseDateMs.map(ISO8601.string(fromMilliseconds:))),
            .string(ISO8601.string(fromMilliseconds: r.expiresDateMs)), amount(r.priceMilliunits),
            amount(r.refundMilliunits),
        ]
        return .object(Array(zip(keys, values)))
    }
}
