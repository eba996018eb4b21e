/// Prints a Server API result, the targets it bears on, and its headline figures (for the median
/// and spread over repetitions).
enum ServerAPIReport {
    /// What the measurement is for: it decides which targets apply.
    enum Kind: String, Sendable {
        /// Latency > 0, no rate limit: wall time vs the ideal.
        case latency
        /// A worker rate limit under the simulator's 429 threshold: the rate reached, no 429.
        case rate
        /// Zero latency, no rate limit: subscriptions/s, CPU per subscription, memory.
        case zeroLatency = "zero latency"
    }

    /// A headline figure of one repetition.
    struct Figure: Sendable {
        var name: String
        var value: Double
        var unit: String
        var digits: Int
    }

    static let rateTolerance = 0.05

    static func print(_ r: ServerAPIBenchmark.Result, kind: Kind) -> (checks: [TargetCheck], figures: [Figure]) {
        let c = r.configuration
        var checks: [TargetCheck] = []
        var figures: [Figure] = []
        for run in r.runs {
            let n = max(1, run.outcomes.items)
            let o = run.outcomes
            let e = run.expected
            Swift.print(BenchFormat.line(run.label, run.summary.text))
            if run.exit.code != 0 {
                Swift.print(BenchFormat.line("worker", "\(run.exit.description); last stderr lines:\n    \(run.stderrTail)"))
            }
            Swift.print(BenchFormat.line("wall", BenchFormat.fixed(run.seconds) + " s"))
            Swift.print(BenchFormat.line(
                "receipts/s",
                "\(BenchFormat.fixed(run.receiptsPerSecond, 1)) (\(o.updated) updated, \(o.unchanged) unchanged, \(o.invalid) invalid, \(o.accountGone) account_gone, \(o.failed) failed; \(BenchFormat.grouped(o.subscriptions)) subscriptions stored)"))
            Swift.print(BenchFormat.line(
                "Server API calls",
                "\(BenchFormat.grouped(run.requests)) sent, \(run.summary.apiRateLimited ?? 0) answered 429, \(BenchFormat.fixed(Double(run.requests) / Double(n), 3)) per receipt"))
            Swift.print(BenchFormat.line(
                "needed at least",
                "\(BenchFormat.grouped(e.total)): \(BenchFormat.grouped(e.statuses)) statuses + \(e.sandboxReasks) sandbox re-asks + \(e.notFoundReasks) not-found re-asks + \(BenchFormat.grouped(e.historyPages)) history pages (from what the run recorded)"))
            Swift.print(BenchFormat.line(
                "worker CPU",
                "\(BenchFormat.fixed(run.exit.cpuSeconds)) s (user \(BenchFormat.fixed(run.exit.userSeconds)) + sys \(BenchFormat.fixed(run.exit.systemSeconds))), \(BenchFormat.fixed(run.workerMicrosPerReceipt(), 0)) µs/subscription, \(BenchFormat.fixed(run.exit.cpuSeconds / max(run.seconds, 1e-9))) cores"))
            Swift.print(BenchFormat.line(
                "simulator CPU",
                "\(BenchFormat.fixed(run.simulatorCPUSeconds)) s, \(BenchFormat.fixed(run.simulatorMicrosPerReceipt(), 0)) µs/subscription, \(BenchFormat.fixed(run.simulatorMicrosPerRequest(), 0)) µs/request, \(BenchFormat.fixed(run.simulatorCPUSeconds / max(run.seconds, 1e-9))) cores"))
            Swift.print(BenchFormat.line("worker peak RSS", BenchFormat.megabytes(kilobytes: run.exit.peakRSSKilobytes)))
            let tag = "\(kind == .zeroLatency ? "0 ms" : "\(c.latencyMs) ms"), \(run.label)"
            figures.append(Figure(name: "\(run.label): worker CPU", value: run.workerMicrosPerReceipt(), unit: "µs/sub", digits: 0))
            switch kind {
            case .latency:
                if let ideal = r.idealSeconds(run), let minimum = r.idealSeconds(calls: e.total) {
                    let ratio = run.seconds / ideal
                    Swift.print(BenchFormat.line(
                        "ideal",
                        "\(BenchFormat.fixed(ideal)) s (requests × L ÷ C: \(BenchFormat.grouped(run.requests)) × \(c.latencyMs) ms ÷ \(c.concurrency)); per receipt \(BenchFormat.fixed(minimum)) s (\(BenchFormat.grouped(c.receipts)) receipts × \(BenchFormat.fixed(Double(e.total) / Double(n), 3)) calls needed × L ÷ C)"))
                    Swift.print(BenchFormat.line(
                        "ratio to ideal", "\(BenchFormat.fixed(ratio, 3)) (to the per-receipt ideal \(BenchFormat.fixed(run.seconds / minimum, 3)))"))
                    checks.append(TargetCheck(
                        name: "server-api \(tag): wall ÷ ideal", measured: BenchFormat.fixed(ratio, 3),
                        limit: "≤ 1.10", met: ratio <= 1.10))
                    figures.append(Figure(name: "\(run.label): wall", value: run.seconds, unit: "s", digits: 2))
                    figures.append(Figure(name: "\(run.label): wall ÷ ideal", value: ratio, unit: "", digits: 3))
                    figures.append(Figure(name: "\(run.label): requests", value: Double(run.requests), unit: "", digits: 0))
                }
            case .rate:
                let target = Double(c.workerRate)
                let measured = run.requestsPerSecond
                let own = run.summary.apiRate ?? 0
                let rateLimited = run.summary.apiRateLimited ?? -1
                Swift.print(BenchFormat.line(
                    "rate",
                    "\(BenchFormat.fixed(measured, 1))/s (requests ÷ wall), the worker's own \(BenchFormat.fixed(own, 1))/s (first to last request); limit \(c.workerRate)/s, the simulator's 429 threshold \(BenchFormat.fixed(c.simulatorRateLimit ?? 0, 0))/s"))
                Swift.print(BenchFormat.line(
                    "429s",
                    "\(rateLimited) answered 429 by the worker's count (the simulator counts its own 429s too, but a separate `subrecon simulator` process has no way to report them)"))
                if run.seconds < 20 {
                    Swift.print(BenchFormat.line("note", "under 20 s of requests: start-up and the last answer's latency weigh on requests ÷ wall"))
                }
                for (what, value) in [("requests ÷ wall", measured), ("worker's rate", own)] {
                    let off = target > 0 ? abs(value - target) / target : 0
                    checks.append(TargetCheck(
                        name: "server-api \(c.workerRate)/s, \(run.label): \(what)",
                        measured: "\(BenchFormat.fixed(value, 1))/s (\(BenchFormat.fixed(off * 100, 1)) % off)",
                        limit: "within 5 %", met: off <= rateTolerance))
                }
                checks.append(TargetCheck(
                    name: "server-api \(c.workerRate)/s, \(run.label): 429s", measured: "\(rateLimited)",
                    limit: "0", met: rateLimited == 0))
                figures.append(Figure(name: "\(run.label): requests ÷ wall", value: measured, unit: "/s", digits: 1))
                figures.append(Figure(name: "\(run.label): worker's own rate", value: own, unit: "/s", digits: 1))
                figures.append(Figure(name: "\(run.label): 429s", value: Double(rateLimited), unit: "", digits: 0))
            case .zeroLatency:
                let perSecond = run.receiptsPerSecond
                let micros = run.workerMicrosPerReceipt()
                checks.append(TargetCheck(
                    name: "server-api \(tag): subscriptions/s", measured: BenchFormat.fixed(perSecond, 0),
                    limit: "≥ 3000", met: perSecond >= 3000))
                checks.append(TargetCheck(
                    name: "server-api \(tag): worker CPU/sub", measured: BenchFormat.fixed(micros, 0) + " µs",
                    limit: "≤ 250 µs", met: micros <= 250))
                checks.append(TargetCheck(
                    name: "server-api \(tag): worker peak RSS",
                    measured: BenchFormat.megabytes(kilobytes: run.exit.peakRSSKilobytes), limit: "< 150 MB",
                    met: run.exit.peakRSSKilobytes < 150 * 1024))
                figures.append(Figure(name: "\(run.label): subscriptions/s", value: perSecond, unit: "/s", digits: 0))
                figures.append(Figure(
                    name: "\(run.label): simulator CPU", value: run.simulatorMicrosPerReceipt(), unit: "µs/sub", digits: 0))
                figures.append(Figure(
                    name: "\(run.label): worker peak RSS", value: Double(run.exit.peakRSSKilobytes) / 1024, unit: "MB",
                    digits: 1))
            }
        }
        Swift.print(BenchFormat.line("simulator peak RSS", BenchFormat.megabytes(kilobytes: r.simulatorPeakRSSKilobytes)))
        for problem in problems(r) { Swift.print("  BROKEN: " + problem) }
        for check in checks { Swift.print(check.line) }
        return (checks, figures)
    }

    /// Why the figures can't be trusted (the benchmark broke), if they can't: not about speed.
    static func problems(_ r: ServerAPIBenchmark.Result) -> [String] {
        var problems: [String] = []
        if r.registeredAccounts < r.configuration.receipts {
            problems.append("the simulator knows \(r.registeredAccounts) accounts, not \(r.configuration.receipts)")
        }
        for run in r.runs {
            if run.exit.code != 0 {
                problems.append("\(run.label): the worker ended with \(run.exit.description) (see its summary line above)")
            }
            if run.outcomes.items != r.configuration.receipts {
                problems.append("\(run.label): \(run.outcomes.items) of \(r.configuration.receipts) receipts were recorded")
            }
            if run.summary.apiRequests == nil {
                problems.append("\(run.label): no `Server API: N requests` in the worker's summary line")
            }
        }
        return problems
    }

    /// Median and spread of each figure over the repetitions, in first-seen order.
    static func printSpread(title: String, _ repetitions: [[Figure]]) {
        guard repetitions.count > 1 else { return }
        Swift.print("\(title): median [min – max] over \(repetitions.count) repetitions")
        var names: [String] = []
        var values: [String: [Double]] = [:]
        var shapes: [String: Figure] = [:]
        for figures in repetitions {
            for figure in figures {
                if values[figure.name] == nil { names.append(figure.name) }
                values[figure.name, default: []].append(figure.value)
                shapes[figure.name] = figure
            }
        }
        for name in names {
            guard let shape = shapes[name], let sorted = values[name]?.sorted(), !sorted.isEmpty else { continue }
            let middle = sorted.count / 2
            let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            let unit = shape.unit.isEmpty || shape.unit.hasPrefix("/") ? shape.unit : " " + shape.unit
            Swift.print(BenchFormat.line(
                "",
                "\(name): \(BenchFormat.fixed(median, shape.digits))\(unit) [\(BenchFormat.fixed(sorted.first!, shape.digits)) – \(BenchFormat.fixed(sorted.last!, shape.digits))]"))
        }
    }
}
