import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Prints the due-policy comparison and the targets it bears on.
enum DuePolicyReport {
    static func print(_ r: DuePolicyBenchmark.Result) -> [TargetCheck] {
        let c = r.configuration
        let steadyPolicy = r.nights.dropFirst().reduce(0) { $0 + $1.policyCalls }
        let steadyNaive = r.nights.dropFirst().reduce(0) { $0 + $1.naiveCalls }
        Swift.print(BenchFormat.line(
            "Apple calls POLICY",
            BenchFormat.grouped(r.policyCalls) + " (UNSPREAD, the same policy without the spread: \(BenchFormat.grouped(r.unspreadCalls)))"))
        Swift.print(BenchFormat.line("Apple calls NAIVE", BenchFormat.grouped(r.naiveCalls)))
        Swift.print(BenchFormat.line(
            "POLICY ÷ NAIVE",
            "\(BenchFormat.fixed(r.ratio, 3)) (1 / \(BenchFormat.fixed(1 / max(r.ratio, 1e-9), 1))); after the first night \(BenchFormat.fixed(Double(steadyPolicy) / Double(max(1, steadyNaive)), 3))"))
        printNotified(r)
        Swift.print(BenchFormat.line("failed receipts", "\(r.failedReceipts)"))
        Swift.print(BenchFormat.line("took", BenchFormat.fixed(r.seconds, 1) + " s"))
        Swift.print("  calls per subscriber profile (verifications over \(c.days) nights):")
        Swift.print(
            "    " + "profile".padding(toLength: 34, withPad: " ", startingAt: 0)
                + "subscribers   POLICY    NAIVE   ratio   NOTIFIED   ratio")
        for profile in SubscriberPopulation.Profile.allCases {
            guard let e = r.byProfile[profile] else { continue }
            Swift.print(
                "    " + profile.rawValue.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + pad(e.subscribers, 11) + pad(e.policy, 9) + pad(e.naive, 9)
                    + "   " + BenchFormat.fixed(Double(e.policy) / Double(max(1, e.naive)), 3)
                    + pad(e.notified, 11) + "   " + BenchFormat.fixed(Double(e.notified) / Double(max(1, e.naive)), 3))
        }
        Swift.print("  changes NAIVE saw before POLICY (lag: nights until POLICY agreed):")
        let lagsMet = printLags(r.lags, judged: true)
        Swift.print("  changes NAIVE saw before NOTIFIED (lag: nights until NOTIFIED agreed; lost notifications the backfill did not recover wait for a check):")
        _ = printLags(r.notifiedLags, judged: false)
        let bound = DuePolicy.standard.maxAgeMs
        Swift.print("  receipts checked per night after the import night (nights 2–\(c.days)), all \(BenchFormat.grouped(c.subscribers)) imported on night 1:")
        Swift.print("    policy            peak  night    mean  peak ÷ mean   longest wait of an active receipt")
        for (name, s) in [("POLICY (spread)", r.policyLoad), ("UNSPREAD", r.unspreadLoad), ("NOTIFIED", r.notifiedLoad)] {
            Swift.print(
                "    " + name.padding(toLength: 16, withPad: " ", startingAt: 0) + pad(s.peak, 6) + pad(s.peakNight, 7)
                    + right(BenchFormat.fixed(s.mean, 1), 8) + right(BenchFormat.fixed(s.peakOverMean, 2), 13) + "   "
                    + BenchFormat.fixed(Double(s.longestGapMs) / Double(DuePolicy.day), 2) + " days"
                    + (s.lateGaps > 0 ? " (\(s.lateGaps) waits over \(s.boundMs / DuePolicy.day) days)" : "")
                    + (s.boundMs == bound ? "" : " (its maximum age: \(s.boundMs / DuePolicy.day) days)"))
        }
        let checks = [
            TargetCheck(
                name: "due policy: Apple calls ÷ naive over \(c.days) nights", measured: BenchFormat.fixed(r.ratio, 3),
                limit: "≤ 0.200", met: r.ratio <= 0.2),
            TargetCheck(
                name: "due policy: no event later than documented", measured: lagsMet ? "none late" : "some late",
                limit: "renewal/lapse ≤ 1, retry ≤ 1, refund ≤ 7 nights", met: lagsMet),
            TargetCheck(
                name: "due policy: longest wait of an active receipt",
                measured: BenchFormat.fixed(Double(r.policyLoad.longestGapMs) / Double(DuePolicy.day), 2) + " days",
                limit: "≤ \(bound / DuePolicy.day) days", met: r.policyLoad.longestGapMs <= bound),
            // The nightly calls once the catalogue is known: the import night checks every receipt once,
            // with or without notifications (a one-time cost, shown beside it).
            TargetCheck(
                name: "with notifications: nightly calls ÷ naive, nights 2–\(c.days)",
                measured: BenchFormat.fixed(r.notifiedSteadyRatio, 3) + " (all \(c.days) nights with the import night \(BenchFormat.fixed(r.notifiedRatio, 3)))",
                limit: "≤ 0.050", met: r.notifiedSteadyRatio <= 0.05),
        ]
        for check in checks { Swift.print(check.line) }
        for problem in problems(r) { Swift.print("  BROKEN: " + problem) }
        return checks
    }

    /// NOTIFIED's calls against NAIVE's, what became of its notifications, and its disagreements.
    private static func printNotified(_ r: DuePolicyBenchmark.Result) {
        let n = r.notifications
        let steadyNotified = r.nights.dropFirst().reduce(0) { $0 + $1.notifiedCalls }
        let steadyNaive = r.nights.dropFirst().reduce(0) { $0 + $1.naiveCalls }
        let laterNights = max(1, r.nights.count - 1)
        Swift.print(BenchFormat.line(
            "NOTIFIED calls",
            BenchFormat.grouped(r.notifiedCalls)
                + " (\(BenchFormat.fixed(r.configuration.notifiedShare * 100, 0)) % of the notifications delivered\(r.configuration.backfill ? ", the rest backfilled before the night's run" : ", the rest lost")); after the first night \(BenchFormat.fixed(Double(steadyNotified) / Double(laterNights), 1)) a night (NAIVE \(BenchFormat.fixed(Double(steadyNaive) / Double(laterNights), 1)))"))
        Swift.print(BenchFormat.line(
            "NOTIFIED ÷ NAIVE",
            "\(BenchFormat.fixed(r.notifiedRatio, 3)) (1 / \(BenchFormat.fixed(1 / max(r.notifiedRatio, 1e-9), 1))); after the first night \(BenchFormat.fixed(r.notifiedSteadyRatio, 3))"))
        Swift.print(BenchFormat.line(
            "notifications",
            "\(BenchFormat.grouped(n.emitted)) emitted, \(BenchFormat.grouped(n.delivered)) delivered, \(BenchFormat.grouped(n.dropped)) dropped (\(BenchFormat.grouped(n.backfilled)) backfilled); "
                + NotificationOutcome.allCases.map { "\($0.rawValue) \(BenchFormat.grouped(n[$0]))" }.joined(separator: ", ")
                + "; duplicates \(n.duplicates), refused \(n.refused), not stored \(n.unavailable)"))
        let worst = r.notifiedLags.values.map { max($0.maxLag, $0.maxOpenLag) }.max() ?? 0
        let open = r.notifiedLags.values.reduce(0) { $0 + $1.open }
        let episodes = r.notifiedLags.values.reduce(0) { $0 + $1.episodes }
        Swift.print(BenchFormat.line(
            "NOTIFIED vs NAIVE",
            "\(r.nights.reduce(0) { $0 + $1.notifiedDisagreements }) subscription-nights disagree (\(episodes) caught, \(open) still open), longest lag \(worst) nights"))
    }

    /// One row per kind of change: how many the lagging database caught, its lags, what is still
    /// open; `judged` adds the documented delay (docs/due-policy.md) and ok/LATE. True when none
    /// is late.
    private static func printLags(_ lags: [LagTracker.Kind: LagTracker.Stats], judged: Bool) -> Bool {
        Swift.print(
            "    " + "kind".padding(toLength: 38, withPad: " ", startingAt: 0)
                + "caught  max lag  mean  still open (lag ≥)" + (judged ? "  documented" : ""))
        var lagsMet = true
        var rows = 0
        for kind in LagTracker.Kind.allCases {
            let s = lags[kind] ?? LagTracker.Stats()
            guard s.episodes + s.open > 0 || (judged && kind.documentedNights != nil) else { continue }
            let mean = s.episodes > 0 ? BenchFormat.fixed(Double(s.totalLag) / Double(s.episodes), 2) : "-"
            let worst = max(s.maxLag, s.maxOpenLag)
            let met = kind.documentedNights.map { worst <= $0 } ?? true
            if !met { lagsMet = false }
            let open = s.open > 0 ? "\(s.open) (\(s.maxOpenLag))" : "0"
            rows += 1
            let row = "    " + kind.rawValue.padding(toLength: 38, withPad: " ", startingAt: 0) + pad(s.episodes, 6)
                + pad(s.maxLag, 9) + "  " + mean.padding(toLength: 6, withPad: " ", startingAt: 0)
            Swift.print(
                judged
                    ? row + open.padding(toLength: 20, withPad: " ", startingAt: 0) + kind.documentedText
                        + (kind.documentedNights == nil ? "" : (met ? "  ok" : "  LATE"))
                    : row + open)
        }
        if rows == 0 { Swift.print("    none: it agreed with NAIVE every night") }
        return lagsMet
    }

    private static func pad(_ value: Int, _ width: Int) -> String { right(String(value), width) }

    private static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// Why the figures can't be trusted (the benchmark broke), if they can't.
    static func problems(_ r: DuePolicyBenchmark.Result) -> [String] {
        var problems = r.failedReceipts > 0 ? ["\(r.failedReceipts) verifications failed in the due-policy runs"] : []
        if r.notifiedFailedReceipts > 0 {
            problems.append("\(r.notifiedFailedReceipts) verifications failed in the NOTIFIED runs")
        }
        if r.notifications.refused + r.notifications.unavailable > 0 {
            problems.append(
                "\(r.notifications.refused) notifications refused, \(r.notifications.unavailable) not stored in NOTIFIED")
        }
        return problems
    }
}
