import AppleSignedData
import ArgumentParser
import Foundation
import SubRecon
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

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
              subrecon notifications backfill --since "$(date -u -d '2 days ago' +%Y-%m-%dT%H:%M:%SZ)"
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Option(help: "Start of the span, ISO 8601 UTC (inclusive).")
    var since: String

    @Option(help: "End of the span, ISO 8601 UTC (default: now).")
    var until: String?

    @Option(help: "production or sandbox (default production).")
    var environment: String = "production"

    func run() async throws {
        let logger = global.makeLogger()
        let nowMs = ReconciliationJob.wallClockMs()
        guard let sinceMs = ISO8601.milliseconds(from: since) else {
            Console.error("--since must be an ISO 8601 date or date-time in UTC: \(ISO8601.acceptedForms); not \"\(since)\"")
            throw ExitCode(.configuration)
        }
        var untilMs = nowMs
        if let until {
            guard let parsed = ISO8601.milliseconds(from: until) else {
                Console.error("--until must be an ISO 8601 date or date-time in UTC: \(ISO8601.acceptedForms); not \"\(until)\"")
                throw ExitCode(.configuration)
            }
            untilMs = parsed
        }
        let environment: ReceiptEnvironment
        switch self.environment.lowercased() {
        case "production": environment = .production
        case "sandbox": environment = .sandbox
        default:
            Console.error("--environment must be production or sandbox, not \"\(self.environment)\"")
            throw ExitCode(.configuration)
        }
        var flags = verification
        flags.appleAPI = AppleAPI.serverAPI.rawValue
        let job = try await flags.liveJob(global, logger: logger)
        defer { Task { await job.store.close() } }
        guard let serverAPI = job.settings.serverAPI else {
            Console.error("the backfill needs the App Store Server API settings (SUBRECON_API_KEY_FILE, ...)")
            throw ExitCode(.configuration)
        }
        let processor = NotificationProcessor.live(
            store: job.store,
            settings: NotificationSettings(
                bundleID: serverAPI.bundleID, verifier: serverAPI.verifier, appAppleID: serverAPI.appAppleID,
                products: job.settings.products),
            logger: logger)
        do {
            let summary = try await job.backfillNotifications(
                processor: processor, sinceMs: sinceMs, untilMs: untilMs, environment: environment)
            Console.out(Self.describe(summary) + "\n")
        } catch {
            Console.error(error.description)
            if case .apple(_, let summary) = error { Console.out(Self.describe(summary) + "\n") }
            if case .store(_, let summary) = error { Console.out(Self.describe(summary) + "\n") }
            throw ExitCode(error.exitCode)
        }
    }

    static func describe(_ summary: NotificationBackfill.Summary) -> String {
        "\(summary.pages) page(s), \(summary.listed) notification(s) in Apple's history from "
            + "\(ISO8601.string(fromMilliseconds: summary.sinceMs)) to \(ISO8601.string(fromMilliseconds: summary.untilMs)); "
            + NotificationLines.summary(summary.stored, duplicates: summary.alreadyStored)
            + (summary.refused > 0 ? "; \(summary.refused) refused (see the log)" : "")
    }
}
