/// `report revenue`: billed and refunded money per (period, product, currency), accumulated one
/// subscription at a time so that only the per-slot totals stay in memory.
///
/// What each row counts (the contract's rules, and where it was silent, the choices made here):
/// - Rows counted: ``LedgerEntry/counts(in:)`` (payer-owned, in `--environment`).
/// - By purchase date (a row without one is bucketed nowhere by purchase; its refund still counts):
///   - `trial_starts`: `offer_discount_type` `FREE_TRIAL`.
///   - `unpriced_periods`: the price is unknown (``LedgerEntry/hasKnownPrice``), whatever else the
///     row is; such a row is never a paid period.
///   - a paid period: a known price > 0 (`paid_periods`, `gross_milliunits`), as `new_paid` for
///     `PURCHASE`, `renewals` for `RENEWAL`, and for any other or no reason `new_paid` when no row
///     of the subscription was bought before it, else `renewals`. `trial_conversions` when the
///     subscription's previous period (the last row with the greatest purchase date below this
///     one's) is a `FREE_TRIAL`, even if that trial lies outside the window.
///   - a known price of 0 that is no `FREE_TRIAL` (e.g. a free offer-code period) counts in no
///     column and makes no slot; it is still a "previous period" for trial conversions.
///   - a `FREE_TRIAL` with a known positive price (contradictory data) is both a trial start and a
///     paid period: each rule is applied as written.
/// - By refund date (`cancellation_date_ms`): `refunds`, `refunded_milliunits` for
///   `refund_milliunits > 0`.
/// - The window: `--since` ≤ the instant bucketed < `--until` (or the end of the current period).
/// - The decimal columns are empty when no row counted in the slot has a known price (a free
///   trial with a known price of 0 does make `0.00`).
package struct RevenueReport {
    package static let columns = [
        "period", "product_id", "currency", "paid_periods", "new_paid", "renewals", "trial_starts",
        "trial_conversions", "refunds", "gross_milliunits", "refunded_milliunits", "net_milliunits", "gross",
        "refunded", "net", "unpriced_periods",
    ]

    package let options: MoneyReportOptions
    private let window: (lower: Int64, upper: Int64)
    private var slots: [Slot: Totals] = [:]

    /// One output row's key.
    private struct Slot: Hashable {
        var period: Int64
        var productID: String
        var currency: String
    }

    /// One output row's counts and sums.
    private struct Totals {
        var paidPeriods: Int64 = 0
        var newPaid: Int64 = 0
        var renewals: Int64 = 0
        var trialStarts: Int64 = 0
        var trialConversions: Int64 = 0
        var refunds: Int64 = 0
        var unpricedPeriods: Int64 = 0
        var gross = WideInteger.zero
        var refunded = WideInteger.zero
        var hasKnownPrice = false

        mutating func record(knownPrice: Bool, _ change: (inout Totals) -> Void) {
            change(&self)
            if knownPrice { hasKnownPrice = true }
        }
    }

    package init(options: MoneyReportOptions) {
        self.options = options
        window = options.windowMs
    }

    /// Adds one subscription's ledger rows (one `original_transaction_id`), ideally sorted by
    /// `purchase_date_ms` ascending, nil first (they are sorted here when not).
    package mutating func add(subscription entries: [LedgerEntry]) {
        let environment = options.environment
        let rows = LedgerEntry.inPurchaseOrder(entries).filter { $0.counts(in: environment) }
        let firstPurchaseMs = rows.lazy.compactMap(\.purchaseDateMs).first
        // The "previous period" of each row: the last row of the group of rows bought at the
        // greatest purchase date below its own.
        var groupPurchaseMs: Int64?
        var lastRowWasTrial: Bool?
        var previousWasTrial: Bool?
        for row in rows {
            if let refund = row.refundMilliunits, refund > 0, let refundedMs = row.cancellationDateMs, inWindow(refundedMs) {
                update(row, at: refundedMs) { totals in
                    totals.refunds += 1
                    totals.refunded += WideInteger(refund)
                }
            }
            guard let purchaseMs = row.purchaseDateMs else { continue }
            if purchaseMs != groupPurchaseMs {
                previousWasTrial = lastRowWasTrial
                groupPurchaseMs = purchaseMs
            }
            lastRowWasTrial = row.isFreeTrial
            guard inWindow(purchaseMs) else { continue }
            let price = row.hasKnownPrice ? row.priceMilliunits ?? 0 : nil
            let isPaid = (price ?? 0) > 0
            guard row.isFreeTrial || price == nil || isPaid else { continue }
            let isNew: Bool
            switch row.transactionReason {
            case "PURCHASE": isNew = true
            case "RENEWAL": isNew = false
            default: isNew = purchaseMs == firstPurchaseMs
            }
            let converted = previousWasTrial == true
            update(row, at: purchaseMs) { totals in
                if row.isFreeTrial { totals.trialStarts += 1 }
                guard let price else {
                    totals.unpricedPeriods += 1
                    return
                }
                guard price > 0 else { return }
                totals.paidPeriods += 1
                if isNew { totals.newPaid += 1 } else { totals.renewals += 1 }
                if converted { totals.trialConversions += 1 }
                totals.gross += WideInteger(price)
            }
        }
    }

    /// The CSV rows, without the header, sorted bytewise by (period, product_id, currency).
    package func rows() -> [[String?]] {
        let keyed = slots.map { slot, totals in
            (label: ReportPeriod(granularity: options.granularity, index: slot.period).label, slot: slot, totals: totals)
        }
        let sorted = keyed.sorted { lhs, rhs in
            if lhs.label != rhs.label { return lhs.label.utf8.lexicographicallyPrecedes(rhs.label.utf8) }
            if lhs.slot.productID != rhs.slot.productID {
                return lhs.slot.productID.utf8.lexicographicallyPrecedes(rhs.slot.productID.utf8)
            }
            return lhs.slot.currency.utf8.lexicographicallyPrecedes(rhs.slot.currency.utf8)
        }
        return sorted.map { label, slot, totals in
            let net = totals.gross - totals.refunded
            func money(_ amount: WideInteger) -> String? {
                totals.hasKnownPrice ? MoneyText.text(milliunits: amount, currency: slot.currency) : nil
            }
            return [
                label, slot.productID, slot.currency,
                String(totals.paidPeriods), String(totals.newPaid), String(totals.renewals),
                String(totals.trialStarts), String(totals.trialConversions), String(totals.refunds),
                totals.gross.description, totals.refunded.description, net.description,
                money(totals.gross), money(totals.refunded), money(net),
                String(totals.unpricedPeriods),
            ]
        }
    }

    private func inWindow(_ ms: Int64) -> Bool { ms >= window.lower && ms < window.upper }

    /// Applies `change` to the slot of `row` in the period holding `instantMs`, creating it.
    private mutating func update(_ row: LedgerEntry, at instantMs: Int64, _ change: (inout Totals) -> Void) {
        let period = ReportPeriod(holding: instantMs, granularity: options.granularity).index
        let slot = Slot(period: period, productID: row.productID, currency: row.currencyColumn)
        // One hashed access per update: the slot is created, changed and marked in place.
        slots[slot, default: Totals()].record(knownPrice: row.hasKnownPrice, change)
    }
}
