import AppStoreSimulator
import ArgumentParser
import Foundation
import SubRecon

/// `subrecon simulator`: the fake verifyReceipt on its own, for trying things by hand.
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulator",
        abstract: "Run the built-in App Store simulator alone (verifyReceipt-compatible, loopback only).",
        discussion: """
            Serves POST /verifyReceipt (production) and /sandbox/verifyReceipt (sandbox) on \
            127.0.0.1. With a shared secret file, other passwords answer 21004.

            Example:
              subrecon simulator --port 8080 --latency-ms 100 &
              SUBRECON_PRODUCTION_URL=http://127.0.0.1:8080/verifyReceipt \\
              SUBRECON_SANDBOX_URL=http://127.0.0.1:8080/sandbox/verifyReceipt subrecon run
            """)

    @Option(help: "Port on 127.0.0.1 (0: a free one, printed on start).")
    var port: UInt16 = 0

    @Option(help: "Milliseconds added to every answer.")
    var latencyMs: Int = 0

    @Option(help: "A file whose first line is the shared secret the simulator expects (default: accept any).")
    var sharedSecretFile: String?

    @Option(help: "Write sample receipts (CSV, one per scenario) to this file and keep serving.")
    var writeSampleReceipts: String?

    func validate() throws {
        if latencyMs < 0 { throw ValidationError("--latency-ms must be 0 or more") }
    }

    func run() async throws {
        var secret: String?
        if let sharedSecretFile {
            guard let text = try? String(contentsOfFile: sharedSecretFile, encoding: .utf8),
                let line = text.split(separator: "\n").first, !line.isEmpty
            else {
                Console.error("cannot read a secret from \(sharedSecretFile)")
                throw ExitCode(2)
            }
            secret = line.trimmingCharacters(in: .whitespaces)
        }
        let simulator = AppStoreSimulator(
            options: SimulatorOptions(sharedSecret: secret, latency: .milliseconds(latencyMs)))
        let actual = try await simulator.start(port: port)
        if let writeSampleReceipts {
            try DemoRun.sampleReceiptsCSV(nowMs: ReconciliationJob.wallClockMs())
                .write(toFile: writeSampleReceipts, atomically: true, encoding: .utf8)
        }
        Console.out("App Store simulator on 127.0.0.1:\(actual)\n  production: \(simulator.productionURL)\n  sandbox:    \(simulator.sandboxURL)\n")
        while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
    }
}
