import ArgumentParser
import Foundation

/// `subrecon-bench receiver`: load on `subrecon notifications serve` over loopback.
struct ReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiver",
        abstract: "POST notifications to `subrecon notifications serve` on keep-alive connections; requests/s, latency, memory, rows stored.",
        discussion: """
            By default the real load: before it (not timed), a fresh store (a SQLite file in the \
            temporary folder, or with --postgres a database of its own on the benchmark's PostgreSQL, \
            dropped afterwards) holding --history earlier notifications (a receiver that has been \
            running; PostgreSQL's tables analyzed then, as autovacuum keeps them), --subscribers \
            active subscribers imported by transaction id, and \
            --generate distinct notifications signed by the simulator's chain (DID_RENEW and \
            DID_CHANGE_RENEWAL_STATUS, signedDates over the last hour); the receiver trusts that \
            root. Each notification is sent once, so every request is a verify and a durable write; \
            if the load outruns them it stops early and says so. Afterwards it counts the rows in \
            `notifications`: every 200 must be one stored notification delivered once (else exit 1).

            Starts the receiver as its own process, drives --connections keep-alive connections \
            (closed loop) for --seconds, then stops it with SIGTERM. Prints requests/s, p50/p99/max \
            latency (request to answer), the answers by status, the receiver's RSS at start, halfway \
            and at the end (memory flat?) and its CPU. Figures only: it never fails on speed. \
            --bodies FILE (JSON Lines, one {"signedPayload": "..."} a line) sends those in turn \
            instead; --synthetic sends bodies of a notification's size that the intake refuses (400): \
            the HTTP path alone. --wrk drives the same closed loop with wrk and \
            scripts/wrk-receiver.lua (the bodies written to a file first): a load generator that is \
            not ours, to check the figures against.

            Examples:
              subrecon-bench receiver --connections 16 --seconds 60 --generate 80000
              subrecon-bench receiver --postgres --connections 16 --seconds 60 --generate 80000
              subrecon-bench receiver --postgres --seconds 60 --generate 150000 --wrk /usr/bin/wrk
              subrecon-bench receiver --synthetic --seconds 5
              subrecon-bench receiver --bodies n.jsonl --receiver-argument=--apple-root-ca-file --receiver-argument=root.pem
              subrecon-bench receiver --url http://127.0.0.1:8088/apple/notifications --bodies n.jsonl
            """)

    @Option(help: "Signed notifications to generate, each sent once (default 2,500 a second of --seconds).")
    var generate: Int?

    @Option(help: "Subscribers the generated notifications are spread over (imported before the load).")
    var subscribers: Int = 1_000

    @Option(help: "Earlier notifications the store holds before the load (a receiver that has been running; PostgreSQL analyzed after).")
    var history: Int = 100_000

    @Flag(help: "Generated load on PostgreSQL: a database of its own on the benchmark's server (see --postgres-url).")
    var postgres = false

    @Option(help: "The PostgreSQL server for --postgres (the role needs CREATEDB; default SUBRECON_BENCH_POSTGRES_URL, else SUBRECON_TEST_POSTGRES_URL, with the password file of the same name: …_PASSWORD_FILE).")
    var postgresURL: String?

    @Option(help: "JSON Lines file of notification bodies, sent in turn, instead of generated ones.")
    var bodies: String?

    @Flag(help: "Synthetic bodies the intake refuses (400), instead of generated ones: the HTTP path alone.")
    var synthetic = false

    @Option(help: "Keep-alive connections, each with one request in flight.")
    var connections: Int = 32

    @Option(help: "Open loop: this many requests a second, due on a fixed schedule and sent by free connections; latency counts from when each was due (default: closed loop).")
    var rate: Double?

    @Option(help: "How long to drive the load.")
    var seconds: Int = 10

    @Option(help: "With --bodies or --synthetic: the receiver's store (default: a new SQLite file in the temporary folder).")
    var db: String?

    @Option(
        name: .customLong("receiver-argument"),
        help: "One more argument for `notifications serve` (repeat; e.g. --receiver-argument=--bundle-id --receiver-argument=com.example.app).")
    var receiverArguments: [String] = []

    @Option(help: "With --bodies or --synthetic: drive a receiver already running at this URL instead of starting one (no RSS or CPU then).")
    var url: String?

    @Option(help: "Drive the load with this wrk executable (e.g. /usr/bin/wrk) and scripts/wrk-receiver.lua, closed loop on one wrk thread, instead of this process's libcurl lanes.")
    var wrk: String?

    @Option(help: "The Lua script for --wrk.")
    var wrkScript: String = "scripts/wrk-receiver.lua"

    @OptionGroup var options: BenchOptions

    func validate() throws {
        if !(1...1024).contains(connections) { throw ValidationError("--connections must be from 1 to 1024") }
        if let rate, !(rate > 0 && rate <= 1_000_000) { throw ValidationError("--rate must be above 0 and at most 1,000,000") }
        if seconds < 1 { throw ValidationError("--seconds must be at least 1") }
        if let bodies, !FileManager.default.isReadableFile(atPath: bodies) {
            throw ValidationError("--bodies \(bodies) cannot be read")
        }
        if bodies != nil, synthetic { throw ValidationError("--bodies and --synthetic: choose one") }
        if let wrk {
            if !FileManager.default.isExecutableFile(atPath: wrk) { throw ValidationError("--wrk \(wrk) is not an executable") }
            if !FileManager.default.isReadableFile(atPath: wrkScript) { throw ValidationError("--wrk-script \(wrkScript) cannot be read") }
            if rate != nil { throw ValidationError("--wrk drives a closed loop: not with --rate") }
        }
        let generating = bodies == nil && !synthetic
        if generating {
            if db != nil || url != nil {
                throw ValidationError("--db and --url go with --bodies or --synthetic: generated notifications need a fresh store and a receiver that trusts their root")
            }
            if let generate, !(1...3_000_000).contains(generate) { throw ValidationError("--generate must be from 1 to 3,000,000") }
            if subscribers < 1 { throw ValidationError("--subscribers must be at least 1") }
            if !(0...10_000_000).contains(history) { throw ValidationError("--history must be from 0 to 10,000,000") }
        } else if generate != nil || postgres {
            throw ValidationError("--generate and --postgres make their own notifications: not with --bodies or --synthetic")
        }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        var source = ReceiverBenchmark.Bodies.generate(
            count: generate ?? 2_500 * seconds, subscribers: subscribers, history: history)
        if let bodies { source = .file(bodies) } else if synthetic { source = .synthetic }
        var server: BenchPostgres?
        if postgres {
            guard let found = try BenchPostgres.find(url: postgresURL) else {
                print("receiver: " + WorkersSuite.noPostgres)
                throw ExitCode.failure
            }
            server = found
        }
        try await ReceiverBenchmark(
            bodies: source, connections: connections, rate: rate, seconds: seconds, database: db, postgres: server,
            receiverArguments: receiverArguments, url: url, subreconPath: options.subreconPath, keep: options.keep,
            wrk: wrk.map { ($0, wrkScript) }
        ).run()
    }
}
