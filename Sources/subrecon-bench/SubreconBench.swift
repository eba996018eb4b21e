import ArgumentParser

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// `subrecon-bench`: prints throughput, CPU, memory and Apple-call figures against the targets
/// docs/performance.md lists. A benchmark, never a test: it exits non-zero only when the benchmark
/// itself breaks (a process fails to start, a database cannot be written), never on a figure.
@main
struct SubreconBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subrecon-bench",
        abstract: "Measure subrecon: receipts/s, CPU, peak RSS, Apple calls; the naive baseline; the due policy; Server API mode; several workers.",
        discussion: """
            The worker (`subrecon run --all`) and the simulator (`subrecon simulator`) run as separate \
            processes so their CPU and memory are measured alone; `subrecon` is looked for next to this \
            executable unless --subrecon is given.

            Examples:
              subrecon-bench throughput --latency-ms 100 --naive-sample 100
              subrecon-bench throughput --latency-ms 0 --naive-sample 0
              subrecon-bench stages
              subrecon-bench due-policy --subscribers 2000 --days 30
              subrecon-bench server-api --repeat 3
              subrecon-bench workers --postgres-url postgres://me@127.0.0.1/postgres
              subrecon-bench receiver --bodies notifications.jsonl --seconds 60
              subrecon-bench money --subscriptions 100000 --months 12
              subrecon-bench apple-parity --subscriptions 100000 --months 12
              subrecon-bench webhooks
              subrecon-bench all
            """,
        subcommands: [ThroughputCommand.self, DuePolicyCommand.self, ServerAPICommand.self, WorkersCommand.self, AllCommand.self, TransportCommand.self, SeedCommand.self, StagesCommand.self, ReceiverCommand.self, MoneyCommand.self, AppleParityCommand.self, WebhooksCommand.self])
}

/// Figures appear as they are measured even when stdout is a pipe or a file (`bench.sh | tee`).
enum LineBufferedOutput {
    static func enable() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
