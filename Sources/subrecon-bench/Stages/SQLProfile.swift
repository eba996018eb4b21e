import Foundation
import Synchronization

/// Wall time SQLite spent in each statement (by its SQL text), summed over a stage.
final class SQLProfile: Sendable {
    private let totals = Mutex<[String: (count: Int, seconds: Double)]>([:])

    func add(_ sql: String, _ seconds: TimeInterval) {
        totals.withLock { $0[sql, default: (0, 0)].count += 1; $0[sql, default: (0, 0)].seconds += seconds }
    }

    /// Prints the totals so far per receipt, and starts over.
    func print(receipts: Int) {
        let rows = totals.withLock { totals in defer { totals = [:] }; return totals }.sorted { $0.value.seconds > $1.value.seconds }
        for (sql, total) in rows {
            let text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(70)
            Swift.print(BenchFormat.line(
                "  sql", "\(BenchFormat.fixed(total.seconds / Double(max(1, receipts)) * 1e6, 1)) µs per receipt, \(total.count)×: \(text)"))
        }
    }
}
