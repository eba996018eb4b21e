/// Prints a throughput result and the targets it bears on.
enum ThroughputReport {
    static func print(_ r: ThroughputBenchmark.Result) -> [TargetCheck] {
        let c = r.configuration
        let n = max(1, r.verified)
        Swift.print(BenchFormat.line("wall", BenchFormat.fixed(r.seconds) + " s"))
        Swift.print(BenchFormat.line("receipts/s", BenchFormat.fixed(r.receiptsPerSecond, 1)))
        Swift.print(BenchFormat.line(
            "worker CPU",
            "\(BenchFormat.fixed(r.worker.cpuSeconds)) s (user \(BenchFormat.fixed(r.worker.userSeconds)) + sys \(BenchFormat.fixed(r.worker.systemSeconds))), \(BenchFormat.fixed(r.worker.cpuSeconds / Double(n) * 1e6, 0)) µs/receipt, \(BenchFormat.fixed(r.worker.cpuSeconds / max(r.seconds, 1e-9))) cores"))
        Swift.print(BenchFormat.line(
            "simulator CPU",
            "\(BenchFormat.fixed(r.simulatorCPUSeconds)) s, \(BenchFormat.fixed(r.simulatorCPUSeconds / Double(max(1, r.appleCalls)) * 1e6, 0)) µs/request, \(BenchFormat.fixed(r.simulatorCPUSeconds / max(r.seconds, 1e-9))) cores (peak RSS \(BenchFormat.megabytes(kilobytes: r.simulatorPeakRSSKilobytes)))"))
        Swift.print(BenchFormat.line("worker peak RSS", BenchFormat.megabytes(kilobytes: r.worker.peakRSSKilobytes)))
        Swift.print(BenchFormat.line(
            "Apple calls",
            "\(BenchFormat.grouped(r.appleCalls)) (\(BenchFormat.grouped(r.verified)) receipts + \(r.sandboxReroutes) sandbox reroutes; \(r.failed) failed)"))
        var checks: [TargetCheck] = []
        if let ideal = r.idealSeconds, let ratio = r.ratioToIdeal {
            Swift.print(BenchFormat.line(
                "ideal",
                "\(BenchFormat.fixed(ideal)) s (N × L ÷ C); counting the reroutes' calls \(BenchFormat.fixed(r.idealSecondsByCalls ?? ideal)) s"))
            Swift.print(BenchFormat.line("ratio to ideal", BenchFormat.fixed(ratio, 3)))
            checks.append(TargetCheck(
                name: "\(c.receipts) receipts, \(c.latencyMs) ms, C=\(c.concurrency): wall ÷ ideal",
                measured: BenchFormat.fixed(ratio, 3), limit: "≤ 1.10", met: ratio <= 1.10))
        } else {
            Swift.print(BenchFormat.line("ideal", "n/a at 0 ms latency"))
            checks.append(TargetCheck(
                name: "\(c.receipts) receipts, 0 ms, C=\(c.concurrency): receipts/s",
                measured: BenchFormat.fixed(r.receiptsPerSecond, 0), limit: "≥ 5000", met: r.receiptsPerSecond >= 5000))
        }
        if let naive = r.naive {
            Swift.print(BenchFormat.line(
                "naive baseline",
                "\(naive.receipts) receipts in \(BenchFormat.fixed(naive.seconds)) s: \(BenchFormat.fixed(naive.receiptsPerSecond, 2)) receipts/s, CPU \(BenchFormat.fixed(naive.cpuSeconds)) s, \(naive.appleCalls) Apple calls, \(naive.failures) failed"))
            if let ratio = r.ratioToNaive {
                Swift.print(BenchFormat.line("ours ÷ naive", BenchFormat.fixed(ratio, 1) + " ×"))
                if c.latencyMs > 0 {
                    checks.append(TargetCheck(
                        name: "throughput ÷ naive baseline at \(c.latencyMs) ms", measured: BenchFormat.fixed(ratio, 1) + " ×",
                        limit: "≥ 50 ×", met: ratio >= 50))
                }
            }
        }
        checks.append(TargetCheck(
            name: "worker peak RSS, \(BenchFormat.grouped(c.receipts)) receipts",
            measured: BenchFormat.megabytes(kilobytes: r.worker.peakRSSKilobytes), limit: "< 150 MB",
            met: r.worker.peakRSSKilobytes < 150 * 1024))
        for problem in problems(r) { Swift.print("  BROKEN: " + problem) }
        for check in checks { Swift.print(check.line) }
        return checks
    }

    /// Why the figures can't be trusted (the benchmark broke), if they can't: not about speed.
    static func problems(_ r: ThroughputBenchmark.Result) -> [String] {
        var problems: [String] = []
        if r.worker.code != 0 {
            problems.append("the worker ended with \(r.worker.description) (see its summary line above)")
        }
        if r.verified != r.configuration.receipts {
            problems.append("\(r.verified) of \(r.configuration.receipts) receipts were recorded")
        }
        if let naive = r.naive, naive.failures > 0 {
            problems.append("the naive baseline got no answer for \(naive.failures) receipts")
        }
        return problems
    }
}
