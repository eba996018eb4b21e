import SubReconModel
import SubReconStore

/// The ledger in a few lines (what `subrecon demo --apple-api server-api` ends with): billed,
/// refunded and net per currency over the whole ledger, and this month's MRR.
enum RevenueSummaryText {
    /// Billed, refunded and net over the whole ledger per currency (Production), and today's MRR:
    /// the sums of `report revenue` and the last row of `report metrics`.
    static func text(_ db: any SnapshotQuerying, nowMs: Int64) async throws -> String {
        let options = MoneyReportOptions(nowMs: nowMs)
        var totals: [String: (gross: Int64, refunded: Int64, paid: Int, refunds: Int)] = [:]
        for row in try await LedgerWalk.revenueRows(db, options) where (row[2] ?? "") != "" {
            let currency = row[2] ?? ""
            var total = totals[currency] ?? (0, 0, 0, 0)
            total.gross += Int64(row[9] ?? "") ?? 0
            total.refunded += Int64(row[10] ?? "") ?? 0
            total.paid += Int(row[3] ?? "") ?? 0
            total.refunds += Int(row[8] ?? "") ?? 0
            totals[currency] = total
        }
        let current = ReportPeriod(holding: nowMs, granularity: .month).label
        var mrr: [String: String] = [:]
        for row in try await LedgerWalk.metricsRows(db, options) where row[0] == current {
            if let currency = row[1], let text = row[5] { mrr[currency] = text }
        }
        var lines = ["revenue (Production; customers' prices before Apple's commission and taxes, per currency):"]
        for currency in totals.keys.sorted() {
            guard let t = totals[currency] else { continue }
            func text(_ milliunits: Int64) -> String { MoneyText.text(milliunits: milliunits, currency: currency) }
            lines.append(
                "  \(currency)  gross \(text(t.gross)) (\(t.paid) paid periods), refunded \(text(t.refunded)) "
                    + "(\(t.refunds) \(t.refunds == 1 ? "refund" : "refunds")), net \(text(t.gross - t.refunded)), MRR now \(mrr[currency] ?? text(0))")
        }
        if totals.isEmpty { lines.append("  no priced periods yet") }
        return lines.joined(separator: "\n")
    }
}
