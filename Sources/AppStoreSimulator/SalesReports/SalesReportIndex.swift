import Synchronization

/// Every registered account's report lines, summed per Pacific day: what the Summary Sales
/// Reports are cut from. Built on the first request that needs it and kept until the accounts
/// change or another day is published, so a request costs the rows of its day, not a replay of
/// every account (100,000 accounts fetched for 365 days would otherwise replay them 365 times).
///
/// Built at one "now" after the newest published day ended, so every purchase and refund of a
/// published day is in it; a refund reversal later than that build shows from the next
/// publication on. Like the Server API's history, each subscription's older periods beyond
/// `SubscriptionTimeline.historyLimit` are not materialised and appear in no report.
final class SalesReportIndex: Sendable {
    private struct Built {
        let generation: Int
        let newestPublished: PacificDay
        let days: [PacificDay: [SalesReportRow: Int64]]
    }

    private let registry: SimulatedAccountRegistry
    private let built = Mutex<Built?>(nil)

    init(registry: SimulatedAccountRegistry) {
        self.registry = registry
    }

    /// The aggregated rows of `day` (a published day at `nowMs`) with their units, in file order.
    func rows(of day: PacificDay, nowMs: Int64) -> [(row: SalesReportRow, units: Int64)] {
        let newestPublished = PacificDay.newestPublished(atMs: nowMs)
        let days = built.withLock { built -> [PacificDay: [SalesReportRow: Int64]] in
            // Under the lock: concurrent first requests wait for one build instead of each making one.
            if let current = built, current.generation == registry.generation,
               current.newestPublished == newestPublished {
                return current.days
            }
            let (accounts, generation) = registry.snapshot()
            let days = Self.index(accounts, nowMs: nowMs)
            built = Built(generation: generation, newestPublished: newestPublished, days: days)
            return days
        }
        return (days[day] ?? [:]).map { (row: $0.key, units: $0.value) }.sorted { $0.row < $1.row }
    }

    /// Sums the lines of every account per day.
    static func index(_ accounts: [SimulatedSubscriber], nowMs: Int64) -> [PacificDay: [SalesReportRow: Int64]] {
        var days: [PacificDay: [SalesReportRow: Int64]] = [:]
        for subscriber in accounts {
            for line in lines(of: subscriber, nowMs: nowMs) {
                days[line.day, default: [:]][line.row, default: 0] += line.units
            }
        }
        return days
    }

    /// What `subscriber` puts in Apple's reports as of `nowMs`: each period billed at a price
    /// above zero on the Pacific day of its purchase (1 unit), each full refund on the day of its
    /// revocation (−1 unit, the price negative) and each prorated refund there (0 units, the
    /// refunded share negative). Only Production accounts that paid themselves: family members
    /// and the sandbox bill nobody. Upgrades revoke without a refund: no line.
    static func lines(of subscriber: SimulatedSubscriber, nowMs: Int64) -> [(day: PacificDay, row: SalesReportRow, units: Int64)] {
        guard subscriber.environment == .production, subscriber.ownership == .purchased,
              subscriber.fixedStatus == nil || subscriber.fixedStatus == 0
        else { return [] }
        let storefront = subscriber.storefront
        var lines: [(day: PacificDay, row: SalesReportRow, units: Int64)] = []
        for timeline in ServerAPIBodyRenderer.timelines(of: subscriber, nowMs: nowMs) {
            for transaction in timeline.trimmedHistory() {
                let price = ServerAPIBodyRenderer.priceMilliunits(of: transaction, currency: storefront.currency)
                guard price > 0 else { continue }
                let billed = SalesReportRow.billed(
                    productID: transaction.productID, isFirstBilling: transaction.index == 0, priceMilliunits: price,
                    storefront: storefront)
                lines.append((PacificDay(containing: transaction.purchaseMs), billed, 1))
                guard let revocationType = transaction.revocationType, let revokedMs = transaction.cancellationMs else {
                    continue
                }
                let revocationDay = PacificDay(containing: revokedMs)
                if revocationType == "REFUND_PRORATED", let percentage = transaction.refundPercentage {
                    let refunded = SalesReportRow.proratedMilliunits(
                        of: price, percentage: percentage, digits: storefront.currencyMinorDigits)
                    lines.append((revocationDay, SalesReportRow.refund(of: billed, refundedMilliunits: refunded), 0))
                } else {
                    lines.append((revocationDay, SalesReportRow.refund(of: billed, refundedMilliunits: price), -1))
                }
            }
        }
        return lines
    }
}
