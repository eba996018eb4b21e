import ArgumentParser
import Foundation

/// `subrecon-bench webhooks`: the events outbox delivered by `WebhookDeliverer` to a loopback
/// receiver, on SQLite and on PostgreSQL.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Webhook delivery: events/s and peak RSS to a receiver answering at once, wall time against 100 ms answers, commit-to-attempt latency under continuous delivery.",
        discussion: """
            Everything runs in this process: the store (a fresh SQLite file, then a fresh database on \
            the benchmark's PostgreSQL when one is configured, dropped afterwards), `WebhookDeliverer` \
            with its libcurl transport and the default schedule, and a loopback HTTP receiver. Events \
            (signed `subscription.renewed` bodies of ~2 KB; event i belongs to subscription \
            i mod N) go in through the store's own event writer, one transaction per batch.
              throughput: --events over --subscriptions, delivered until none is pending (as \
            `webhooks deliver`); events/s and the peak RSS while delivering (VmHWM, reset when \
            delivery starts). Targets ≥ 2,000/s, ≤ 100 MB.
              100 ms answers: --slow-events over --slow-subscriptions; wall time against the ideal, \
            events × answer ÷ concurrency. Target ≤ 1.15 ×.
              latency: the deliverer runs continuously (as under `serve`) while a writer with \
            connections of its own commits --latency-rate events a second, one per transaction, for \
            --latency-seconds; from each commit's return to the request's arrival (by webhook-id): \
            p50, p99, max. Target p99 ≤ 1 s.
            Figures, not a test: a MISS never fails the command; events lost or sent twice do.
            Example: subrecon-bench webhooks --postgres-url postgres://me@127.0.0.1/postgres
              subrecon-bench webhooks --events 2000 --slow-events 200 --latency-seconds 2 --no-postgres
            """)

    @Option(help: "Requests in flight (the deliverer's concurrency; SUBRECON_WEBHOOK_CONCURRENCY's default).")
    var concurrency: Int = 16

    @Option(help: "Events of the throughput run (0: skip it).")
    var events: Int = 100_000

    @Option(help: "Subscriptions the throughput run's events are spread over.")
    var subscriptions: Int = 10_000

    @Option(help: "Events of the 100 ms run (0: skip it).")
    var slowEvents: Int = 2_000

    @Option(help: "Subscriptions the 100 ms run's events are spread over.")
    var slowSubscriptions: Int = 500

    @Option(help: "How long the slow receiver takes to answer.")
    var slowAnswerMs: Int = 100

    @Option(help: "Events committed per second in the latency run.")
    var latencyRate: Int = 200

    @Option(help: "Seconds the latency run commits for (0: skip it).")
    var latencySeconds: Double = 20

    @Option(help: "Subscriptions the latency run's events are spread over.")
    var latencySubscriptions: Int = 1_000

    @Option(help: "Events per transaction when filling the outbox.")
    var insertBatch: Int = 1_000

    @Flag(inversion: .prefixedNo, help: "Measure on SQLite.")
    var sqlite = true

    @Flag(inversion: .prefixedNo, help: "Measure on PostgreSQL too when one is configured.")
    var postgres = true

    @Option(help: "The PostgreSQL server (the role needs CREATEDB; default SUBRECON_BENCH_POSTGRES_URL, else SUBRECON_TEST_POSTGRES_URL, with the password file of the same name: …_PASSWORD_FILE).")
    var postgresURL: String?

    @Flag(
        inversion: .prefixedNo,
        help: "On PostgreSQL, VACUUM ANALYZE the filled outbox before delivering (as autovacuum soon would); --no-analyze delivers with the statistics of an empty table.")
    var analyze = true

    @Option(help: "Delivered events already in the outbox (analyzed) before the throughput run's events are written: a backlog after an outage.")
    var history: Int = 0

    @Flag(help: "Keep the temporary folder (the SQLite databases) and the PostgreSQL databases.")
    var keep = false

    func validate() throws {
        if !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be 1 to 256") }
        if events < 0 || slowEvents < 0 || !(latencySeconds >= 0) {
            throw ValidationError("--events, --slow-events and --latency-seconds must be 0 (skip) or more")
        }
        if subscriptions < 1 || slowSubscriptions < 1 || latencySubscriptions < 1 || insertBatch < 1 || latencyRate < 1 {
            throw ValidationError("--subscriptions, --slow-subscriptions, --latency-subscriptions, --latency-rate and --insert-batch must be at least 1")
        }
        if history < 0 { throw ValidationError("--history must be 0 or more") }
        if slowAnswerMs < 0 { throw ValidationError("--slow-answer-ms must be 0 or more") }
        if !sqlite && !postgres { throw ValidationError("--no-sqlite and --no-postgres leave nothing to measure") }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        print("machine: \(BenchMachine.description); deliverer, receiver and the database share its cores, figures vary with the host and its load")
        var stores: [WebhookBenchStoreKind] = []
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: keep) }
        if sqlite { stores.append(.sqlite(folder: folder)) }
        if postgres {
            if let server = try BenchPostgres.find(url: postgresURL) {
                stores.append(.postgres(server))
            } else {
                print("webhooks on PostgreSQL: skipped, " + WorkersSuite.noPostgres)
            }
        }
        var checks: [TargetCheck] = []
        var problems: [String] = []
        for store in stores {
            let benchmark = WebhooksBenchmark(configuration: .init(
                store: store, concurrency: concurrency, insertBatch: insertBatch, throughputEvents: events,
                throughputSubscriptions: subscriptions, slowEvents: slowEvents, slowSubscriptions: slowSubscriptions,
                slowAnswerMs: slowAnswerMs, latencyRate: latencyRate, latencySeconds: latencySeconds,
                latencySubscriptions: latencySubscriptions, keep: keep, analyze: analyze, history: history))
            if events > 0 {
                print("webhooks on \(store.name), throughput: receiver answering at once, concurrency \(concurrency)")
                let result = try await benchmark.throughput()
                checks += WebhooksReport.print(result, store: store.name)
                problems += WebhooksReport.problems(result, label: "throughput").map { "\(store.name) \($0)" }
            }
            if slowEvents > 0 {
                print("webhooks on \(store.name), receiver answering in \(slowAnswerMs) ms, concurrency \(concurrency)")
                let result = try await benchmark.slow()
                checks += WebhooksReport.print(result, store: store.name, concurrency: concurrency)
                problems += WebhooksReport.problems(result.drain, label: "\(slowAnswerMs) ms answers").map { "\(store.name) \($0)" }
            }
            if latencySeconds > 0 {
                print("webhooks on \(store.name), continuous delivery while \(latencyRate) events/s commit, concurrency \(concurrency)")
                let result = try await benchmark.latency()
                checks += WebhooksReport.print(result, store: store.name, rate: latencyRate)
                problems += WebhooksReport.problems(result).map { "\(store.name) \($0)" }
            }
        }
        print("summary (figures, not a test: a MISS never fails the benchmark)")
        for check in checks { print(check.line) }
        if !problems.isEmpty {
            for problem in problems { print("  BROKEN: " + problem) }
            throw ExitCode.failure
        }
    }
}
