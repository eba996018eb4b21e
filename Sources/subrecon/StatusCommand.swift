import ArgumentParser
import Foundation
import SubRecon

/// `subrecon status`: the operator's one screen.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show subscriptions, due receipts, the last runs, repeatedly failing receipts and undelivered events.",
        discussion: """
            Reads the database only (never calls Apple), in one consistent snapshot even while a \
            run writes. Subscriptions by status (entitled = active + grace_period); receipts due now \
            and by verification state; the last \(StatusReport.runLimit) runs; receipts that failed \
            \(StatusReport.repeatedFailureThreshold) or more times in a row (the worst \(StatusReport.failingLimit)); \
            events per app, when any is pending or dead: how many are pending and dead, the oldest \
            pending one's age, and whether the app has a webhook endpoint (without one its events are \
            recorded, not sent).

            Examples:
              subrecon status
              subrecon status --json | jq '.receipts.due_now'
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print JSON (snake_case keys, times in ISO 8601 UTC) for tools instead of text.")
    var json = false

    func run() async throws {
        let report = try await global.context().status()
        if json {
            FileHandle.standardOutput.write(try report.json())
        } else {
            Console.out(report.text())
        }
    }
}
