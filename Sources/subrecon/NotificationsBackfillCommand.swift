import ArgumentParser
import Foundation
import SubRecon
import SubReconModel

/// `subrecon notifications backfill --since ISO8601 [--until ISO8601]`
struct NotificationsBackfillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill",
        abstract: "Recover notifications the receiver missed, from Apple's notification history.",
        discussion: """
            Asks the App Store Server API's Get Notification History for the span (every page) \
            and stores and applies each notification not stored yet, exactly as the receiver \
            would: what was lost while the receiver was down is recovered. Overlapping spans are \
            harmless. Needs the Server API settings (SUBRECON_API_KEY_FILE, SUBRECON_API_KEY_ID, \
            SUBRECON_API_ISSUER_ID, SUBRECON_BUNDLE_ID). Apple keeps 180 days (30 in the sandbox); \
            an earlier --since is moved up with a warning. Exit 0: done; 1: Apple gave no usable \
            answer after retries (what was stored stands; run it again); 2: configuration, or \
            Apple refused the key; 74: the database failed.

            Example (cron, daily, the last two days):
              subrecon notifications backfill \\
                  --since "$(date -u -d '2 days ago' +%Y-%m-%dT%H:%M:%SZ)"
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: ServerAPIOptions

    @Option(help: "Start of the span, ISO 8601 UTC (inclusive).")
    var since: String

    @Option(help: "End of the span, ISO 8601 UTC (default: now).")
    var until: String?

    @Option(help: "Production or Sandbox, in either case.")
    var environment: String = "Production"

    func run() async throws {
        try await global.context().backfillNotifications(
            since: since, until: until, environment: environment, flags: verification.flags)
    }
}
