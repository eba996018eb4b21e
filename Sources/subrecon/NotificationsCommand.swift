import ArgumentParser

/// `subrecon notifications serve|import|backfill`: App Store Server Notifications V2. Each
/// subcommand is a file of its own.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "App Store Server Notifications V2: receive and apply them, import forwarded ones, backfill missed ones.",
        discussion: """
            Examples:
              subrecon notifications serve --port 8088   # behind a TLS proxy
              subrecon notifications import forwarded.jsonl
              subrecon notifications backfill --since 2026-11-01T00:00:00Z
            """,
        subcommands: [NotificationsServeCommand.self, NotificationsImportCommand.self, NotificationsBackfillCommand.self])
}
