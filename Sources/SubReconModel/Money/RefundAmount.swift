/// The contract's `refund_milliunits` of one ledger row: what Apple gave back for that period.
///
/// Computed when a row is written (and again when its revocation changes), from the row's own
/// fields, so the reports only add stored values up.
package enum RefundAmount {
    /// The milli-percentage that means the whole price (`revocation_percentage` is 0–100000).
    package static let wholeMillipercent: Int64 = 100_000

    /// - Returns: nil when the refund is unknown: the price is unknown (no price, a negative one,
    ///   or no currency: "a price without a currency is an unknown price"), a `REFUND_PRORATED`
    ///   has no valid percentage, or the `revocation_type` is one the contract does not name
    ///   (the caller logs those). Otherwise the refund in milliunits, 0 when nothing was given back.
    package static func milliunits(
        priceMilliunits: Int64?, currency: String?, cancellationDateMs: Int64?, isUpgraded: Bool,
        revocationType: String?, revocationPercentage: Int64?
    ) -> Int64? {
        // A negative price is malformed and stored as empty; should one reach us, it is unknown too.
        guard let price = priceMilliunits, price >= 0, let currency, !currency.isEmpty else { return nil }
        // Revocation fields without a revocation date are ignored: nothing was revoked (also
        // what a reversed refund looks like: the date disappears from the newest data).
        guard cancellationDateMs != nil else { return 0 }
        switch revocationType {
        case nil, "":
            // Older data: a revocation date and no type. An upgraded transaction's date marks the
            // upgrade (its unused time is credited to the new product, not paid out): 0.
            return isUpgraded ? 0 : price
        case "REFUND_FULL":
            // The type decides when present, even on an upgraded transaction.
            return price
        case "REFUND_PRORATED":
            guard let percentage = revocationPercentage, (0...wholeMillipercent).contains(percentage) else { return nil }
            // price × percentage can pass Int64.max for a large price; the result never does.
            return HalfEven.multiplyDivide(price, percentage, by: wholeMillipercent)
        case "FAMILY_REVOKE":
            return 0
        default:
            return nil
        }
    }
}
