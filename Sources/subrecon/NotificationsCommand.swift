import ArgumentParser

/// `subrecon notifications serve|import|backfill`: App Store Server Notifications V2. Each
/// subcommand is a file of its own.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "App Store Server Notifications V2: receive and apply them, import forwarded ones, backfill missed ones.",
        subcommands: [NotificationsServeCommand.self, NotificationsImportCommand.self, NotificationsBackfillCommand.self])
}
