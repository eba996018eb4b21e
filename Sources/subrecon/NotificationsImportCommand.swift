import ArgumentParser
import SubRecon

/// `subrecon notifications import FILE|-`
struct NotificationsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Verify and apply App Store Server Notifications forwarded as JSON Lines.",
        discussion: """
            One {"signedPayload": "..."} body per line, as Apple POSTs them (an app server that \
            already receives notifications may forward them). Every line is verified first: any \
            bad line is reported as FILE:LINE: reason and nothing from the file is applied (exit \
            65). Then each notification is stored and applied like one the receiver took; one \
            stored before only counts another delivery. Exit 66: the file cannot be read; 74: \
            the database failed (what was stored stands; importing again is harmless).

            Example:
              subrecon notifications import forwarded.jsonl
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var notification: NotificationOptions

    @Argument(help: "The JSON Lines file, or - for standard input.")
    var file: String

    func run() async throws {
        let summary = try await global.context().importNotifications(file: file, flags: notification.flags)
        Console.out(summary + "\n")
    }
}
