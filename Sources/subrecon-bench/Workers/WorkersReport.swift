import Foundation
import SubRecon

/// The workers measurement's figures and targets.
enum WorkersReport {
    static let rateTolerance = 0.05

    static func print(_ r: WorkersBenchmark.Result) -> [TargetCheck] {
        let c = r.configuration
        Swift.print(BenchFormat.line(
            "registered", "\(BenchFormat.grouped(r.registeredAccounts)) accounts with the simulator"))
        for worker in r.workers {
            let seconds = worker.runStartedAtMs.flatMap { start in worker.runFinishedAtMs.map { Double($0 - start) / 1000 } }
            Swift.print(BenchFormat.line(
                "worker \(worker.number)",
                "\(BenchFormat.grouped(worker.receipts)) receipts, \(BenchFormat.grouped(worker.requests)) requests, \(worker.rateLimited) answered 429, its own rate \(BenchFormat.fixed(worker.summary.apiRate ?? 0, 1))/s, run \(seconds.map { BenchFormat.fixed($0, 2) + " s" } ?? "?"), CPU \(BenchFormat.fixed(worker.exit.cpuSeconds, 1)) s, \(worker.exit.description)"))
        }
        let summed = r.summedRate ?? 0
        let limit = c.simulatorRateLimit.map { "the simulator's 429 threshold \(BenchFormat.fixed($0, 0))/s per app" } ?? "no 429 threshold"
        let budget = c.workerRate == 0 ? "no rate limit" : "limit \(c.workerRate)/s per app for all workers"
        Swift.print(BenchFormat.line(
            "all workers",
            "\(BenchFormat.grouped(r.requests)) requests in \(BenchFormat.fixed(r.runsSeconds ?? 0, 2)) s (first run's start to last run's end) = \(BenchFormat.fixed(summed, 1))/s; \(budget), \(limit)"))
        Swift.print(BenchFormat.line(
            "", "\(BenchFormat.fixed(Double(r.requests) / r.wallSeconds, 1))/s over the processes' wall time (\(BenchFormat.fixed(r.wallSeconds, 2)) s, start-up included); a worker's own rate runs from its first request to its last, and the last one running gets the whole budget"))
        for (index, app) in r.simulator.apps.enumerated() {
            Swift.print(BenchFormat.line(
                "app \(index + 1)",
                "\(app.bundleID): \(BenchFormat.grouped(app.requests)) Server API requests, \(app.rateLimited) answered 429, \(app.rate.map { BenchFormat.fixed($0, 1) } ?? "?")/s from its first request to its last, as the simulator saw them"))
        }
        let workerCPU = r.workers.map(\.exit.cpuSeconds).reduce(0, +)
        Swift.print(BenchFormat.line(
            "CPU",
            "workers \(BenchFormat.fixed(workerCPU, 1)) s, simulator \(BenchFormat.fixed(r.simulatorCPUSeconds, 1)) s (registration included): \(BenchFormat.fixed((workerCPU + r.simulatorCPUSeconds) / r.wallSeconds, 2)) of the host's \(ProcessInfo.processInfo.activeProcessorCount) cores over the wall time, PostgreSQL not counted"))
        Swift.print(BenchFormat.line("429s", "\(r.rateLimited) answered 429 (the simulator's count)"))
        Swift.print(BenchFormat.line(
            "receipts",
            "\(BenchFormat.grouped(r.receiptsRecorded)) of \(BenchFormat.grouped(c.receipts)) verified, \(BenchFormat.grouped(r.runItems)) run items, \(r.verifiedTwice) verified twice"))
        for problem in problems(r) { Swift.print("  BROKEN: " + problem) }
        var checks: [TargetCheck] = []
        if c.workerRate > 0, c.apps == 1 {
            let off = abs(summed - Double(c.workerRate)) / Double(c.workerRate)
            checks.append(TargetCheck(
                name: "workers \(c.workers) × \(c.workerRate)/s shared: summed rate",
                measured: "\(BenchFormat.fixed(summed, 1))/s (\(BenchFormat.fixed(off * 100, 1)) % off)", limit: "within 5 %",
                met: off <= rateTolerance))
        } else if c.workerRate > 0 {
            for (index, app) in r.simulator.apps.enumerated() {
                let rate = app.rate ?? 0
                let off = abs(rate - Double(c.workerRate)) / Double(c.workerRate)
                checks.append(TargetCheck(
                    name: "\(c.workers) worker(s), app \(index + 1) of \(c.apps) at \(c.workerRate)/s",
                    measured: "\(BenchFormat.fixed(rate, 1))/s (\(BenchFormat.fixed(off * 100, 1)) % off)", limit: "within 5 %",
                    met: off <= rateTolerance))
            }
        } else {
            let ratio = r.wallSeconds / r.idealSeconds
            Swift.print(BenchFormat.line(
                "ideal",
                "\(BenchFormat.fixed(r.idealSeconds, 2)) s (requests × \(c.latencyMs) ms ÷ \(c.workers * c.concurrency) slots); the processes took \(BenchFormat.fixed(ratio, 3)) ×, their runs \(BenchFormat.fixed((r.runsSeconds ?? 0) / r.idealSeconds, 3)) ×"))
            checks.append(TargetCheck(
                name: "workers \(c.workers) × \(c.concurrency), \(c.latencyMs) ms, no rate: wall ÷ ideal",
                measured: "\(BenchFormat.fixed(ratio, 3)) × (\(BenchFormat.fixed(r.wallSeconds, 2)) s ÷ \(BenchFormat.fixed(r.idealSeconds, 2)) s)",
                limit: "≤ 1.10 ×", met: ratio <= 1.10))
        }
        checks.append(TargetCheck(name: "workers: 429s", measured: "\(r.rateLimited)", limit: "0", met: r.rateLimited == 0))
        checks.append(TargetCheck(
            name: "workers: receipts verified twice", measured: "\(r.verifiedTwice)", limit: "0", met: r.verifiedTwice == 0))
        for check in checks { Swift.print(check.line) }
        return checks
    }

    /// Why the figures can't be trusted (the benchmark broke), if they can't: not about speed.
    static func problems(_ r: WorkersBenchmark.Result) -> [String] {
        var problems: [String] = []
        if r.registeredAccounts < r.configuration.receipts {
            problems.append("the simulator knows \(r.registeredAccounts) accounts, not \(r.configuration.receipts)")
        }
        for worker in r.workers where worker.exit.code != 0 {
            problems.append("worker \(worker.number) ended with \(worker.exit.description): \(worker.summary.text)\n    \(worker.stderrTail)")
        }
        for worker in r.workers where r.configuration.appleAPI == .serverAPI && worker.summary.apiRequests == nil {
            problems.append("worker \(worker.number): no `Server API: N requests` in its summary line")
        }
        if r.simulator.apps.count != r.configuration.apps, r.configuration.appleAPI == .serverAPI {
            problems.append("the simulator saw requests of \(r.simulator.apps.count) app(s), not \(r.configuration.apps)")
        }
        if r.receiptsRecorded != r.configuration.receipts {
            problems.append("\(r.receiptsRecorded) of \(r.configuration.receipts) receipts were recorded")
        }
        if r.runsSeconds == nil { problems.append("the workers' runs were not all recorded with a start and an end") }
        return problems
    }
}
