import ArgumentParser

/// `subrecon notifications serve|import|backfill`: App Store Server Notifications V2.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "App Store Server Notifications V2: import forwarded ones, backfill missed ones.",
        subcommands: [NotificationsImportCommand.self, NotificationsBackfillCommand.self])
}
