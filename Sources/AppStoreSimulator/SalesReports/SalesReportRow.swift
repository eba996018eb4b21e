/// One line of a Summary Sales Report before `Units` are summed: every column that varies in the
/// simulator's reports. Lines equal in all of them are one row of the file, their units added,
/// as Apple aggregates.
struct SalesReportRow: Sendable, Hashable, Comparable {
    /// SKU: for an in-app purchase, its product id.
    var productID: String
    /// `New` (the first billing: transaction id = original transaction id) or `Renewal`.
    var subscription: String
    /// `7 Days`, `1 Month`, `1 Year`.
    var period: String
    /// Per unit, in milliunits of `currency`; negative for a refund.
    var customerPriceMilliunits: Int64
    /// Per unit, in milliunits; positive, refunds included (as Apple writes them).
    var developerProceedsMilliunits: Int64
    var currency: String
    /// ISO 3166-1 alpha-2.
    var countryCode: String
    /// Decimal places `currency`'s amounts are written with.
    var minorDigits: Int

    /// File order: product, country, currency, then billings before refunds, New before Renewal.
    static func < (a: Self, b: Self) -> Bool {
        (a.productID, a.countryCode, a.currency, -a.customerPriceMilliunits, a.subscription)
            < (b.productID, b.countryCode, b.currency, -b.customerPriceMilliunits, b.subscription)
    }

    /// The report's `Period` of a product's standard duration.
    static func period(of productID: String) -> String {
        switch productID {
        case SimulatedProducts.proWeekly: "7 Days"
        case SimulatedProducts.proYearly: "1 Year"
        default: "1 Month"
        }
    }

    /// A billed period at `priceMilliunits`.
    static func billed(
        productID: String, isFirstBilling: Bool, priceMilliunits: Int64, storefront: SimulatedStorefront
    ) -> SalesReportRow {
        SalesReportRow(
            productID: productID, subscription: isFirstBilling ? "New" : "Renewal", period: period(of: productID),
            customerPriceMilliunits: priceMilliunits,
            developerProceedsMilliunits: proceeds(of: priceMilliunits, digits: storefront.currencyMinorDigits),
            currency: storefront.currency, countryCode: storefront.alpha2, minorDigits: storefront.currencyMinorDigits)
    }

    /// A refund of `refundedMilliunits` (the whole price, or a prorated share) of a period billed
    /// as `billed`: negative price, positive proceeds.
    static func refund(of billed: SalesReportRow, refundedMilliunits: Int64) -> SalesReportRow {
        var row = billed
        row.customerPriceMilliunits = -refundedMilliunits
        row.developerProceedsMilliunits = proceeds(of: refundedMilliunits, digits: billed.minorDigits)
        return row
    }

    /// A prorated refund: `priceMilliunits` × `percentage` milli-percent, rounded half to even to
    /// the currency's minor units (GBP 89.99 × 42.5 % = 38.245750 → 38.25).
    static func proratedMilliunits(of priceMilliunits: Int64, percentage: Int64, digits: Int) -> Int64 {
        let unit = minorUnitMilliunits(digits)
        return roundedHalfToEven(priceMilliunits * percentage, dividedBy: 100_000 * unit) * unit
    }

    /// The developer's 70 % of `amountMilliunits`, rounded half to even to the minor units.
    static func proceeds(of amountMilliunits: Int64, digits: Int) -> Int64 {
        let unit = minorUnitMilliunits(digits)
        return roundedHalfToEven(amountMilliunits * 70, dividedBy: 100 * unit) * unit
    }

    /// Milliunits in one minor unit (10 for cents, 1000 for whole yen).
    private static func minorUnitMilliunits(_ digits: Int) -> Int64 {
        var unit: Int64 = 1000
        for _ in 0..<min(3, max(0, digits)) { unit /= 10 }
        return unit
    }

    /// `value / divisor` for a non-negative value, halves to the even neighbour.
    static func roundedHalfToEven(_ value: Int64, dividedBy divisor: Int64) -> Int64 {
        let quotient = value / divisor
        let twiceRemainder = 2 * (value % divisor)
        if twiceRemainder > divisor || (twiceRemainder == divisor && quotient % 2 != 0) { return quotient + 1 }
        return quotient
    }

    /// `milliunits` as the report writes an amount: `digits` decimals, a leading `-` when
    /// negative (`9.99`, `-38.25`, `15000`).
    static func decimal(_ milliunits: Int64, digits: Int) -> String {
        let places = min(3, max(0, digits))
        let magnitude = milliunits.magnitude
        let whole = String(magnitude / 1000)
        var text = milliunits < 0 ? "-" + whole : whole
        guard places > 0 else { return text }
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        text += "." + fraction.prefix(places)
        return text
    }
}
