import Foundation
import ArgumentParser
import Logging
import NotificationReceiver
import SubRecon
import SubReconDemo
import SubReconHTTP

/// `subrecon demo`
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole nightly path against the built-in App Store simulator (no secret, no network).",
        discussion: """
            Starts the simulator on a free loopback port, imports sample receipts covering every \
            subscription status into a fresh temporary database, runs the nightly job, then sends \
            one App Store Server Notification (a refund Apple made a minute later) through the \
            notifications receiver on another loopback port, and prints the subscriptions report. \
            With --apple-api server-api it also imports accounts with a year of billed periods in \
            several currencies and ends with a revenue summary, then fetches Apple's daily sales \
            reports of the last week from the simulator and matches them with the ledger: the one \
            purchase whose receipt never reached the server shows as a lost order. Both write a \
            dashboard page. It ends with commands to explore the database it leaves behind.

            Examples:
              scripts/demo.sh                          # builds, then runs the demo
              subrecon demo
              subrecon demo --apple-api server-api     # with prices, revenue, sales reports
            """)

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "warning"

    @Option(help: "Which Apple API the demo asks: verify-receipt or server-api.")
    var appleAPI: String = AppleAPI.verifyReceipt.rawValue

    func validate() throws {
        guard AppleAPI(rawValue: appleAPI) != nil else {
            throw ValidationError("--apple-api must be verify-receipt or server-api, not \"\(appleAPI)\"")
        }
    }

    func run() async throws {
        let logger = GlobalOptions.bootstrapLogging(level: logLevel, format: .text)
        let api = AppleAPI(rawValue: appleAPI) ?? .verifyReceipt
        let result = try await DemoRun(logger: logger, appleAPI: api, deliver: Self.throughTheReceiver(logger: logger)).run()
        let binary = Self.shellQuoted(Self.binaryPath)
        let database = Self.shellQuoted(result.databasePath)
        var explore = [
            "report subscriptions", "report renewals", "report revenue", "report events",
            "user \(DemoRun.refundUser) --history", "status",
        ]
        // Not `report apple-parity`: it exits 1 on the lost order the demo planted, as cron needs.
        if result.appleParity != nil { explore.append("report metrics") }
        Console.out("""
            subrecon demo: imported one sample receipt per scenario into \(result.databasePath)
            and ran the nightly job against the built-in App Store simulator (\(api.rawValue)),
            for two apps in one deployment, each asked with its own credentials:
            \(result.summary.line)
            \(result.notification ?? "")

            \(result.webhooks.joined(separator: "\n"))

            \(result.revenueSummary)
            \(result.appleParity.map { $0 + "\n" } ?? "")dashboard: \(result.dashboardPath) (one page, opens offline)

            subscriptions (`report subscriptions` has every column):
            \(result.subscriptionsTable)
            per app:
            \(result.apps.map { "  " + $0 }.joined(separator: "\n"))

            Explore further, with the binary the demo built (not on the PATH until installed):
            \(explore.map { "  \(binary) \($0) --db \(database)" }.joined(separator: "\n"))

            """)
        try CommandEnded.with(result.summary.exitStatus)
    }

    /// This binary as the user can run it again: a path (made absolute, so it works from any
    /// folder) when it was started by one, as scripts/demo.sh starts `.build-demo/debug/subrecon`;
    /// the bare name when the shell found it on the PATH.
    static var binaryPath: String {
        let invoked = CommandLine.arguments.first ?? "subrecon"
        guard invoked.contains("/") else { return invoked }
        return URL(fileURLWithPath: invoked).standardizedFileURL.path
    }

    /// `text` as one shell word: as it is when it holds nothing the shell would read, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:=@%,".contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Starts the real receiver on a free loopback port for `processor`, POSTs `body` to it as
    /// Apple would, and stops it.
    static func throughTheReceiver(logger: Logger) -> DemoRun.Delivery {
        { body, processor in
            let server = NotificationReceiverServer(
                configuration: NotificationReceiverConfiguration(host: "127.0.0.1", port: 0, handlesSignals: false),
                intake: processor, logger: logger)
            // The server runs as a child task: it is shut down and awaited on every path out.
            return try await withThrowingTaskGroup(of: Void.self, returning: Int.self) { group in
                group.addTask { try await server.run() }
                guard let url = await server.listeningURL() else {
                    try await group.waitForAll()
                    return 0
                }
                let status: Int
                do {
                    let client = CurlTransport(maxConnections: 1)
                    defer { client.shutdown() }
                    status = try await client.send(
                        HTTPRequest(url: url, headers: [("Content-Type", "application/json")], body: body)).status
                } catch {
                    await server.shutDown()
                    try? await group.waitForAll()
                    throw error
                }
                await server.shutDown()
                try await group.waitForAll()
                return status
            }
        }
    }
}
