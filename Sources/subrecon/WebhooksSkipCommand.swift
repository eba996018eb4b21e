import ArgumentParser
import SubRecon

/// `subrecon webhooks skip`: a new endpoint that should not receive the backlog.
struct WebhooksSkipCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip",
        abstract: "Mark pending events created before --until skipped: they will not be sent.",
        discussion: """
            For a new endpoint that should not receive the backlog. Delivered and dead events stay \
            as they are; a skipped event no longer holds back the later events of its subscription. \
            webhooks replay sends a skipped event after all.

            Example:
              subrecon webhooks skip --until 2026-12-07T00:00:00Z
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Skip pending events created before this ISO 8601 date or date-time, UTC.")
    var until: String

    @Option(name: .customLong("app"), help: "Only this app's events (a bundle ID); repeat for several (default: every app).")
    var apps: [String] = []

    func run() async throws {
        let count = try await global.context().skipEvents(until: until, apps: apps)
        Console.out("skipped \(count) pending event(s)\n")
    }
}
