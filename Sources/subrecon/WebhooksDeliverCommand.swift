import ArgumentParser
import SubRecon
import SubReconModel

/// `subrecon webhooks deliver`: the cron deployment's deliverer (`jobs/deliver-webhooks.sh`).
struct WebhooksDeliverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Deliver the events that are due, wait for retries due within --max-seconds, then exit.",
        discussion: """
            POSTs each app's pending events to its URL, signed (Standard Webhooks), in order per \
            subscription: event n+1 of a subscription only after n is delivered, dead or skipped. \
            A failed attempt (not 2xx in time, a refused connection, a redirect) is retried per \
            SUBRECON_WEBHOOK_RETRY_SCHEDULE; after the last the event is dead. Several deliverers \
            on one PostgreSQL database share the work without sending one event twice at once.

            Exit status: 0 nothing pending, 1 events still pending (they go next time), 2 configuration; \
            SIGTERM or SIGINT lets the attempts in flight finish, then exits 143 or 130.

            Example:
              subrecon webhooks deliver --max-seconds 50
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var webhook: WebhookOptions

    @Option(name: .customLong("app"), help: "Only this app's events (a bundle ID); repeat for several (default: every app with a URL).")
    var apps: [String] = []

    @Option(parsing: .unconditional, help: "Seconds to keep waiting for retries that come due.")
    var maxSeconds: Double = 60

    func run() async throws {
        let summary = try await global.context().deliverWebhooks(webhook.flags, apps: apps, maxSeconds: maxSeconds)
        Console.out(
            "webhooks: \(summary.delivered) delivered, \(summary.retrying) failed attempt(s) to retry, "
                + "\(summary.dead) dead; \(summary.pending) event(s) pending\n")
        if let signal = summary.stoppedBy.flatMap(StopSignal.signal(named:)), let stopped = ExitStatus.stopped(by: signal) {
            try CommandEnded.with(stopped)
        }
        try CommandEnded.with(summary.pending == 0 ? .success : .incomplete)
    }
}
