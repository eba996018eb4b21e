import SubReconModel
import SubReconAppStore

/// Units per ``SalesParityKey`` on one side of `report apple-parity`: Apple's sales report rows, or the
/// ledger's rows. Two tallies (one per side) go to ``SalesParityMatcher``.
public struct SalesParityTally: Sendable, Equatable {
    public private(set) var counts: [SalesParityKey: Int64] = [:]

    public init() {}

    /// Apple's Product Type Identifiers of auto-renewable subscriptions (iOS/iPadOS/visionOS, Mac).
    public static let autoRenewableProductTypes: Set<String> = ["IAY", "IAY-M"]

    // MARK: Apple's side

    /// Adds every row of a report, on the report's day.
    public mutating func add(_ report: SalesReport) {
        for row in report.rows { add(row, on: report.day) }
    }

    public mutating func add(_ row: SalesReportRow, on day: CalendarDay) {
        guard let (key, units) = SalesParityTally.appleCount(row, on: day) else { return }
        counts[key, default: 0] += units
    }

    /// What one Apple row counts for, or nil when it counts for nothing:
    /// - not an auto-renewable subscription (`IAY`, `IAY-M`), or a price of 0 (free periods);
    /// - units > 0, price > 0: `billed`, units at the price;
    /// - units < 0: `refund`, |units| at |price| (Apple's refund rows are negative in both);
    /// - units = 0, price < 0: one `partial_refund` at |price| (a prorated refund);
    /// - units > 0, price < 0 (not seen in Apple's files): money given back per unit without a
    ///   unit taken back, so `partial_refund`, units at |price|;
    /// - units = 0, price > 0: nothing billed, nothing counted.
    static func appleCount(_ row: SalesReportRow, on day: CalendarDay) -> (SalesParityKey, Int64)? {
        guard autoRenewableProductTypes.contains(row.productTypeIdentifier) else { return nil }
        let price = row.customerPriceMilliunits
        guard price != 0 else { return nil }
        let kind: SalesParityKind
        let units: Int64
        switch (row.units, price > 0) {
        case (1..., true): (kind, units) = (.billed, row.units)
        case (..<0, _): (kind, units) = (.refund, row.units == .min ? .max : -row.units)
        case (0, false): (kind, units) = (.partialRefund, 1)
        case (1..., false): (kind, units) = (.partialRefund, row.units)
        default: return nil
        }
        let key = SalesParityKey(
            day: day, productID: row.sku, country: row.countryCode, currency: row.customerCurrency,
            priceMilliunits: price == .min ? .max : abs(price), kind: kind)
        return (key, units)
    }

    // MARK: The ledger's side

    /// Adds what one ledger row counts for (a billed period and/or a refund).
    public mutating func add(_ entry: LedgerEntry, pacificTime: PacificTime) {
        for key in SalesParityTally.ledgerKeys(entry, pacificTime: pacificTime) { counts[key, default: 0] += 1 }
    }

    /// Adds only the keys on `days` (the compared days): a year of ledger rows outside them would
    /// only fill the table for the matcher to drop.
    public mutating func add(_ entry: LedgerEntry, pacificTime: PacificTime, days: Set<CalendarDay>) {
        for key in SalesParityTally.ledgerKeys(entry, pacificTime: pacificTime) where days.contains(key.day) {
            counts[key, default: 0] += 1
        }
    }

    /// The keys a ledger row counts once each:
    /// - only Production rows (no environment counts as Production, as in the money reports), owned
    ///   by the payer (family-shared periods are billed to nobody), with a known currency;
    /// - `billed` when its price is > 0, on the Pacific day of its purchase date (none: not counted);
    /// - a refund when it has a revocation date and `refund_milliunits` > 0 (upgrades and family
    ///   revocations give nothing back), on the Pacific day of that date: `partial_refund` keyed by
    ///   the refund for `REFUND_PRORATED`, rounded (halves to even) to the currency's minor units
    ///   because Apple's files show money at that precision; otherwise `refund` keyed by the price.
    static func ledgerKeys(_ entry: LedgerEntry, pacificTime: PacificTime) -> [SalesParityKey] {
        guard entry.counts(in: "Production"), let currency = entry.currency, !currency.isEmpty else { return [] }
        let country = entry.storefront.flatMap { CountryCode.alpha2(alpha3: $0) } ?? ""
        func key(_ ms: Int64, _ price: Int64, _ kind: SalesParityKind) -> SalesParityKey {
            SalesParityKey(
                day: pacificTime.day(ofMs: ms), productID: entry.productID, country: country, currency: currency,
                priceMilliunits: price, kind: kind)
        }
        var keys: [SalesParityKey] = []
        if let price = entry.priceMilliunits, price > 0, let purchaseMs = entry.purchaseDateMs {
            keys.append(key(purchaseMs, price, .billed))
        }
        if let refundedMs = entry.cancellationDateMs, let refund = entry.refundMilliunits, refund > 0 {
            if entry.revocationType == "REFUND_PRORATED" {
                keys.append(key(refundedMs, roundedToMinorUnits(refund, currency: currency), .partialRefund))
            } else if let price = entry.priceMilliunits, price > 0 {
                keys.append(key(refundedMs, price, .refund))
            }
        }
        return keys
    }

    /// Milliunits rounded half-to-even to the currency's ISO 4217 minor units (GBP 38246 → 38250).
    static func roundedToMinorUnits(_ milliunits: Int64, currency: String) -> Int64 {
        let digits = CurrencyMinorUnits.digits(for: currency)
        guard digits < 3 else { return milliunits }
        var step: Int64 = 1
        for _ in digits..<3 { step *= 10 }
        return HalfEven.divide(milliunits, by: step) * step
    }
}
