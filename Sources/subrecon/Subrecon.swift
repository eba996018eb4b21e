import ArgumentParser
import Foundation

/// subrecon: re-verifies stored App Store receipts with Apple and keeps subscriptions right.
@main
struct Subrecon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subrecon",
        abstract: "Re-verify stored App Store receipts with Apple and keep subscriptions up to date.",
        discussion: """
            Nightly, cron runs `subrecon run`; support runs `subrecon user USER_ID`; finance exports \
            CSV with `subrecon report`. Try `subrecon demo` first: it needs no secret and no network. \
            Settings come from SUBRECON_* environment variables; a flag wins over its variable.
            """,
        version: "0.1.0",
        subcommands: [
            ImportCommand.self, RunCommand.self, UserCommand.self, ReportCommand.self, DemoCommand.self,
            SimulatorCommand.self, StatusCommand.self, ParityCommand.self,
            DbCommand.self, NotificationsCommand.self, AppleReportsCommand.self,
        ])

    /// The contract's exit code for usage errors is 2; ArgumentParser's default is 64 (EX_USAGE).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
