import ArgumentParser
import SubRecon

/// `subrecon demo`
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole nightly path against the built-in App Store simulator (no secret, no network).",
        discussion: """
            Starts the simulator on a free loopback port, imports sample receipts covering every \
            subscription status into a fresh temporary database, runs the nightly job, and prints \
            the subscriptions report.
            """)

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default warning).")
    var logLevel: String = "warning"

    @Option(help: "Which Apple API the demo asks: verify-receipt or server-api (default verify-receipt).")
    var appleAPI: String = AppleAPI.verifyReceipt.rawValue

    func validate() throws {
        guard AppleAPI(rawValue: appleAPI) != nil else {
            throw ValidationError("--apple-api must be verify-receipt or server-api, not \"\(appleAPI)\"")
        }
    }

    func run() async throws {
        let logger = GlobalOptions.bootstrapLogging(level: logLevel, format: .text)
        let api = AppleAPI(rawValue: appleAPI) ?? .verifyReceipt
        let result = try await DemoRun(logger: logger, appleAPI: api).run()
        Console.out("""
            subrecon demo: imported one sample receipt per scenario into \(result.databasePath)
            and ran the nightly job against the built-in App Store simulator (\(api.rawValue)).
            \(result.summary.line)

            report subscriptions:
            \(result.subscriptionsCSV)
            Explore further: subrecon report renewals --db \(result.databasePath)

            """)
        if result.summary.exitCode != 0 { throw ExitCode(result.summary.exitCode) }
    }
}
