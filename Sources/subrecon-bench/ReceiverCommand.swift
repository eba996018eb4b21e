import ArgumentParser
import Foundation

/// `subrecon-bench receiver`: load on `subrecon notifications serve` over loopback.
struct ReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiver",
        abstract: "POST notification bodies to `subrecon notifications serve` on keep-alive connections; requests/s, latency, memory.",
        discussion: """
            Starts the receiver as its own process (SQLite in a temporary folder unless --db says \
            otherwise), drives --connections keep-alive connections posting bodies back to back for \
            --seconds, then stops it with SIGTERM. Prints requests/s, p50/p99/max latency (request to \
            answer), the answers by status, and the receiver's RSS before and after (memory flat?) and \
            CPU. Figures only: it never fails on speed. Bodies come from --bodies, JSON Lines, one \
            {"signedPayload": "..."} a line; without it, synthetic bodies of a real notification's size, \
            which the real intake refuses (400): the HTTP path alone. scripts/wrk-receiver.lua does \
            the same load with wrk.

            Examples:
              subrecon-bench receiver --bodies notifications.jsonl --connections 32 --seconds 60
              subrecon-bench receiver --bodies n.jsonl --db postgres://bench@127.0.0.1/bench
              subrecon-bench receiver --url http://127.0.0.1:8088/apple/notifications --bodies n.jsonl
            """)

    @Option(help: "JSON Lines file of notification bodies, sent in turn (default: synthetic bodies).")
    var bodies: String?

    @Option(help: "Keep-alive connections, each with one request in flight.")
    var connections: Int = 32

    @Option(help: "How long to drive the load.")
    var seconds: Int = 10

    @Option(help: "The receiver's --db (default: a new SQLite file in the temporary folder).")
    var db: String?

    @Option(
        name: .customLong("receiver-argument"),
        help: "One more argument for `notifications serve` (repeat; e.g. --receiver-argument=--bundle-id --receiver-argument=com.example.app).")
    var receiverArguments: [String] = []

    @Option(help: "Drive a receiver that is already running at this URL instead of starting one (no RSS or CPU then).")
    var url: String?

    @OptionGroup var options: BenchOptions

    func validate() throws {
        if !(1...1024).contains(connections) { throw ValidationError("--connections must be from 1 to 1024") }
        if seconds < 1 { throw ValidationError("--seconds must be at least 1") }
        if let bodies, !FileManager.default.isReadableFile(atPath: bodies) {
            throw ValidationError("--bodies \(bodies) cannot be read")
        }
    }

    func run() async throws {
        LineBufferedOutput.enable()
        try await ReceiverBenchmark(
            bodiesFile: bodies, connections: connections, seconds: seconds, database: db,
            receiverArguments: receiverArguments, url: url, subreconPath: options.subreconPath, keep: options.keep
        ).run()
    }
}
