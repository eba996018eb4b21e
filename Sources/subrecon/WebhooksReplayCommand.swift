import ArgumentParser
import SubRecon

/// `subrecon webhooks replay`: events pending again, same id, same body.
struct WebhooksReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Make events pending again with a fresh retry schedule (same id, same body).",
        discussion: """
            Selects one event (--event ID, as report events lists it) or the events created from \
            --since (inclusive) to --until (exclusive; default: now and on), whatever their state; \
            --dead-only keeps only dead ones. The next webhooks deliver (or serve) sends them again.

            Examples:
              subrecon webhooks replay --event 0b4f6c1e-9c7a-4d0e-8a57-2f1c3b9d6e21
              subrecon webhooks replay --since 2026-12-01 --dead-only
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("event"), help: "The event's id (its webhook-id).")
    var eventID: String?

    @Option(help: "Events created from this ISO 8601 date or date-time, UTC, inclusive.")
    var since: String?

    @Option(help: "Like --since, up to this time, exclusive.")
    var until: String?

    @Flag(name: .customLong("dead-only"), help: "Only events that are dead.")
    var deadOnly = false

    func run() async throws {
        let count = try await global.context().replayEvents(eventID: eventID, since: since, until: until, deadOnly: deadOnly)
        Console.out("replayed \(count) event(s): pending again\n")
    }
}
