/// `report metrics`: active paid subscriptions, trials, MRR and churn per (period, currency),
/// measured at each period's end, accumulated one subscription at a time.
///
/// Memory is the aggregates only: per currency, a few arrays with one slot per measured period
/// (difference arrays, so a subscription covering many periods costs per change of its state, not
/// per period). Nothing of a subscription stays after ``add(subscription:)`` returns.
///
/// The measured instants: offset 0 is the period before the first output period (so that the
/// first one "still looks one period back" for churn), and each period is taken at its end (the
/// instant the next begins), the current, unfinished one at `nowMs`. Output runs from the later of
/// `--since` and the first period with data to the earlier of the period before `--until` and the
/// current one.
///
/// Choices where the contract was silent:
/// - A row without a purchase date covers nothing.
/// - Rows with equal purchase dates: the later one in the given order governs.
/// - `mrr` is written from `mrr_milliunits`, and is empty only where that figure rests on unknown
///   prices: an empty currency, or a slot whose covering rows all have unknown prices. A slot that
///   nothing covers (its paying subscribers all churned) or only known-priced trials cover is a
///   known zero: `0.00` (`0` for JPY).
/// - A price of 0 without a currency is an unknown price (the contract's words), so it counts as
///   `active_paid`, adding nothing to MRR; `FREE_TRIAL` always counts as a trial.
package struct MetricsReport {
    package static let columns = ["period", "currency", "active_paid", "active_trials", "mrr_milliunits", "mrr", "churned", "churn_rate"]

    package let options: MoneyReportOptions
    /// The period index of offset 0 (the look-back period).
    private let baseIndex: Int64
    /// The instant each offset is measured at; non-decreasing.
    private let instants: [Int64]
    private var columnsByCurrency: [String: CurrencyColumns] = [:]

    /// The aggregates of one currency, indexed by offset.
    private struct CurrencyColumns {
        /// Difference arrays (count + 1 entries): value at offset o = sum of entries 0...o.
        var paid: [Int64]
        var trials: [Int64]
        var knownPriced: [Int64]
        var twelfths: [WideInteger]
        /// Plain counts at the offset where the churn happened.
        var churned: [Int64]

        init(count: Int) {
            paid = Array(repeating: 0, count: count + 1)
            trials = paid
            knownPriced = paid
            twelfths = Array(repeating: .zero, count: count + 1)
            churned = Array(repeating: 0, count: count)
        }
    }

    /// - Parameters:
    ///   - nowMs: when the report runs (measures the current period; replaces `options.nowMs`).
    ///   - firstDataMs: the earliest `purchase_date_ms` of the environment's payer-owned ledger;
    ///     nil when there is none, and then there are no rows.
    package init(options: MoneyReportOptions, nowMs: Int64, firstDataMs: Int64?) {
        var options = options
        options.nowMs = nowMs
        self.options = options
        let granularity = options.granularity
        let current = options.currentPeriod.index
        var last = current
        if let untilMs = options.untilMs {
            last = min(last, ReportPeriod(holding: untilMs - 1, granularity: granularity).index)
        }
        var first = firstDataMs.map { ReportPeriod(holding: $0, granularity: granularity).index } ?? last + 1
        if let sinceMs = options.sinceMs {
            first = max(first, ReportPeriod(holding: sinceMs, granularity: granularity).index)
        }
        baseIndex = first - 1
        guard first <= last else {
            instants = []
            return
        }
        instants = (baseIndex...last).map { index in
            index < current ? ReportPeriod(granularity: granularity, index: index).endMs : nowMs
        }
    }

    /// One row's coverage: the offsets `[from, to)` it covers, and what it counts as there.
    private struct Span {
        var from: Int
        var to: Int
        var entry: Int
    }

    /// Adds one subscription's ledger rows (one `original_transaction_id`), ideally sorted by
    /// `purchase_date_ms` ascending, nil first (they are sorted here when not).
    package mutating func add(subscription entries: [LedgerEntry]) {
        guard !instants.isEmpty else { return }
        let environment = options.environment
        let rows = LedgerEntry.inPurchaseOrder(entries)
        var spans: [Span] = []
        for (index, row) in rows.enumerated() {
            guard let purchaseMs = row.purchaseDateMs, row.counts(in: environment) else { continue }
            // Covered at T when purchase ≤ T < expires and T < cancellation (if any).
            let coverEndMs = min(row.expiresDateMs, row.cancellationDateMs ?? .max)
            let from = firstOffset(atOrAfter: purchaseMs)
            let to = firstOffset(atOrAfter: coverEndMs)
            if from < to { spans.append(Span(from: from, to: to, entry: index)) }
        }
        guard !spans.isEmpty else { return }
        // `from` never decreases along `spans` (rows are in purchase order), so the governing row
        // (the greatest purchase date covering an offset) is found with a stack: from bottom to
        // top, newer rows with earlier ends. A newer row hides every older one that ends no later.
        var stack: [Int] = []
        var next = 0
        var offset = spans[0].from
        var previousSegment: (end: Int, currency: String, paid: Bool)?
        while true {
            while next < spans.count, spans[next].from <= offset {
                while let top = stack.last, spans[top].to <= spans[next].to { stack.removeLast() }
                stack.append(next)
                next += 1
            }
            while let top = stack.last, spans[top].to <= offset { stack.removeLast() }
            guard let top = stack.last else {
                guard next < spans.count else { break }
                offset = spans[next].from
                continue
            }
            // It governs until it ends or a newer row starts.
            let end = next < spans.count ? min(spans[top].to, spans[next].from) : spans[top].to
            if let previous = previousSegment, previous.paid, previous.end != offset {
                churn(at: previous.end, currency: previous.currency)
            }
            let row = rows[spans[top].entry]
            previousSegment = (end, row.currencyColumn, record(row, from: offset, to: end))
            offset = end
        }
        if let previous = previousSegment, previous.paid, previous.end < instants.count {
            churn(at: previous.end, currency: previous.currency)
        }
    }

    /// The CSV rows, without the header, sorted bytewise by (period, currency).
    package func rows() -> [[String?]] {
        var output: [(label: String, currency: String, cells: [String?])] = []
        for (currency, columns) in columnsByCurrency {
            var paid: Int64 = 0, trials: Int64 = 0, knownPriced: Int64 = 0
            var twelfths = WideInteger.zero
            var paidBefore: Int64 = 0
            for offset in 0..<instants.count {
                paidBefore = paid
                paid += columns.paid[offset]
                trials += columns.trials[offset]
                knownPriced += columns.knownPriced[offset]
                twelfths += columns.twelfths[offset]
                let churned = columns.churned[offset]
                guard offset > 0, paid != 0 || trials != 0 || churned != 0 else { continue }
                let mrr = MRRNormalisation.milliunits(fromTwelfths: twelfths)
                let label = ReportPeriod(granularity: options.granularity, index: baseIndex + Int64(offset)).label
                output.append((label, currency, [
                    label, currency, String(paid), String(trials), mrr.description,
                    Self.mrrIsKnown(currency: currency, covered: paid + trials, knownPriced: knownPriced)
                        ? MoneyText.text(milliunits: mrr, currency: currency) : nil,
                    String(churned), ChurnRate.text(churned: churned, activePaidBefore: paidBefore),
                ]))
            }
        }
        output.sort { lhs, rhs in
            if lhs.label != rhs.label { return lhs.label.utf8.lexicographicallyPrecedes(rhs.label.utf8) }
            return lhs.currency.utf8.lexicographicallyPrecedes(rhs.currency.utf8)
        }
        return output.map(\.cells)
    }

    /// Whether a slot's MRR is a known amount: it has a currency, and some covering row has a
    /// known price or no row covers it at all (zero, not unknown).
    package static func mrrIsKnown(currency: String, covered: Int64, knownPriced: Int64) -> Bool {
        !currency.isEmpty && (knownPriced > 0 || covered == 0)
    }

    /// The first offset measured at or after `instantMs` (`instants.count` when none).
    private func firstOffset(atOrAfter instantMs: Int64) -> Int {
        var low = 0, high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle] < instantMs { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Counts `row` as covering offsets `[from, to)`; returns whether it counts as active_paid.
    private mutating func record(_ row: LedgerEntry, from: Int, to: Int) -> Bool {
        let known = row.hasKnownPrice
        let price = row.priceMilliunits ?? 0
        let isTrial = row.isFreeTrial || known && price == 0
        let currency = row.currencyColumn
        let count = instants.count
        update(currency, count: count) { columns in
            if isTrial {
                columns.trials[from] += 1
                columns.trials[to] -= 1
            } else {
                columns.paid[from] += 1
                columns.paid[to] -= 1
            }
            if known {
                columns.knownPriced[from] += 1
                columns.knownPriced[to] -= 1
            }
            if known, !isTrial, let purchaseMs = row.purchaseDateMs {
                // A length that overflows (absurd dates) is simply the longest kind.
                let (length, overflow) = row.expiresDateMs.subtractingReportingOverflow(purchaseMs)
                let twelfths = MRRNormalisation.monthlyTwelfths(priceMilliunits: price, lengthMs: overflow ? .max : length)
                columns.twelfths[from] += twelfths
                columns.twelfths[to] -= twelfths
            }
        }
        return !isTrial
    }

    private mutating func churn(at offset: Int, currency: String) {
        let count = instants.count
        update(currency, count: count) { $0.churned[offset] += 1 }
    }

    private mutating func update(_ currency: String, count: Int, _ change: (inout CurrencyColumns) -> Void) {
        change(&columnsByCurrency[currency, default: CurrencyColumns(count: count)])
    }
}
