import ArgumentParser

/// `subrecon notifications …`: App Store Server Notifications V2. Each subcommand is a file of its
/// own (`NotificationsServeCommand.swift`, …); add it to `subcommands` here.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Receive Apple's App Store Server Notifications V2 and apply them at once.",
        subcommands: [NotificationsServeCommand.self])
}
