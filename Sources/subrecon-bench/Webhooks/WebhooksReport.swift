import Foundation

/// The webhook measurements' figures and targets (issue 36's "Performance").
enum WebhooksReport {
    static let minimumEventsPerSecond = 2_000.0
    static let maximumPeakKB = 100 * 1024
    static let maximumSlowRatio = 1.15
    static let maximumP99Ms = 1_000.0

    static func print(_ r: WebhooksBenchmark.Drain, store: String) -> [TargetCheck] {
        let perEvent = r.delivered > 0 ? r.cpuSeconds / Double(r.delivered) * 1e6 : 0
        Swift.print(BenchFormat.line(
            "filled", "\(BenchFormat.grouped(r.events)) events over \(BenchFormat.grouped(r.subscriptions)) subscriptions in \(BenchFormat.fixed(r.insertSeconds, 2)) s (\(BenchFormat.grouped(Int(Double(r.events) / max(r.insertSeconds, 1e-9))))/s through the store's event writer)"))
        Swift.print(BenchFormat.line(
            "delivered", "\(BenchFormat.grouped(r.delivered)) in \(BenchFormat.fixed(r.seconds, 2)) s = \(BenchFormat.grouped(Int(r.eventsPerSecond)))/s; the receiver got \(BenchFormat.grouped(r.received)), \(r.pending) still pending"))
        Swift.print(BenchFormat.line(
            "by tenths", r.tenthRates.map { BenchFormat.grouped(Int($0)) }.joined(separator: ", ") + " events/s"))
        Swift.print(BenchFormat.line(
            "store", "\(BenchFormat.grouped(r.store.transactions)) settle-and-claim transactions, \(BenchFormat.fixed(r.store.settledEach, 1)) results each, \(BenchFormat.fixed(r.store.millisecondsEach, 2)) ms each (\(BenchFormat.fixed(Double(r.store.nanoseconds) / 1e9 / max(r.seconds, 1e-9) * 100, 0)) % of the wall time); \(r.store.otherCalls) other calls, \(BenchFormat.fixed(Double(r.store.otherNanoseconds) / 1e6, 0)) ms"))
        let server = r.serverCPUSeconds.map {
            "; PostgreSQL's backends \(BenchFormat.fixed($0, 1)) s = \(BenchFormat.fixed($0 / Double(max(1, r.delivered)) * 1e6, 0)) µs per event"
        }
        Swift.print(BenchFormat.line(
            "CPU", "\(BenchFormat.fixed(r.cpuSeconds, 1)) s = \(BenchFormat.fixed(perEvent, 0)) µs per event (this process: deliverer, libcurl, receiver\(server == nil ? ", SQLite" : ""))\(server ?? "")"))
        Swift.print(BenchFormat.line(
            "peak RSS", "\(r.peakKB.map { BenchFormat.megabytes(kilobytes: $0) } ?? "?") while delivering (RSS \(r.startKB.map { BenchFormat.megabytes(kilobytes: $0) } ?? "?") when it started; this process, receiver included)"))
        let checks = [
            TargetCheck(
                name: "webhooks \(store): events/s",
                measured: "\(BenchFormat.grouped(Int(r.eventsPerSecond)))/s", limit: "≥ 2,000/s",
                met: r.eventsPerSecond >= minimumEventsPerSecond),
            TargetCheck(
                name: "webhooks \(store): peak RSS",
                measured: r.peakKB.map { BenchFormat.megabytes(kilobytes: $0) } ?? "?", limit: "≤ 100 MB",
                met: (r.peakKB ?? .max) <= maximumPeakKB),
        ]
        for check in checks { Swift.print(check.line) }
        return checks
    }

    static func print(_ r: WebhooksBenchmark.Slow, store: String, concurrency: Int) -> [TargetCheck] {
        Swift.print(BenchFormat.line(
            "delivered", "\(BenchFormat.grouped(r.drain.delivered)) events over \(BenchFormat.grouped(r.drain.subscriptions)) subscriptions in \(BenchFormat.fixed(r.drain.seconds, 2)) s; the receiver got \(BenchFormat.grouped(r.drain.received))"))
        Swift.print(BenchFormat.line(
            "ideal", "\(BenchFormat.fixed(r.idealSeconds, 2)) s (events × \(r.answerMs) ms ÷ concurrency \(concurrency)): \(BenchFormat.fixed(r.ratio, 3)) ×"))
        let check = TargetCheck(
            name: "webhooks \(store): \(r.answerMs) ms answers ÷ ideal",
            measured: "\(BenchFormat.fixed(r.ratio, 3)) × (\(BenchFormat.fixed(r.drain.seconds, 2)) s ÷ \(BenchFormat.fixed(r.idealSeconds, 2)) s)",
            limit: "≤ 1.15 ×", met: r.ratio <= maximumSlowRatio)
        Swift.print(check.line)
        return [check]
    }

    static func print(_ r: WebhooksBenchmark.Latency, store: String, rate: Int) -> [TargetCheck] {
        Swift.print(BenchFormat.line(
            "committed", "\(BenchFormat.grouped(r.committed)) events, one per transaction, in \(BenchFormat.fixed(r.seconds, 2)) s (\(BenchFormat.fixed(Double(r.committed) / max(r.seconds, 1e-9), 1))/s, asked \(rate)/s); the receiver got \(BenchFormat.grouped(r.received))"))
        Swift.print(BenchFormat.line(
            "commit → attempt", "p50 \(ms(r.percentile(0.5))), p99 \(ms(r.percentile(0.99))), max \(ms(r.millis.last ?? 0)) over \(BenchFormat.grouped(r.millis.count)) events"))
        if let stopError = r.stopError {
            Swift.print(BenchFormat.line("note", "the deliverer, cancelled once all had arrived, threw: \(stopError)"))
        }
        let p99 = r.percentile(0.99)
        let check = TargetCheck(
            name: "webhooks \(store): latency p99", measured: ms(p99), limit: "≤ 1 s",
            met: !r.millis.isEmpty && p99 <= maximumP99Ms)
        Swift.print(check.line)
        return [check]
    }

    /// Why the figures can't be trusted (events lost or sent twice), if they can't.
    static func problems(_ r: WebhooksBenchmark.Drain, label: String) -> [String] {
        var problems: [String] = []
        if r.delivered != r.events || r.received != r.events || r.pending != 0 {
            problems.append(
                "\(label): \(r.events) events, \(r.delivered) delivered, \(r.received) received, \(r.pending) pending")
        }
        return problems
    }

    static func problems(_ r: WebhooksBenchmark.Latency) -> [String] {
        r.millis.count == r.committed && r.received == r.committed
            ? [] : ["latency: \(r.committed) committed, \(r.received) received, \(r.millis.count) matched by id"]
    }

    private static func ms(_ value: Double) -> String { BenchFormat.fixed(value, 1) + " ms" }
}
