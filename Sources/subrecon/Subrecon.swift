import ArgumentParser
import Foundation
import SubRecon
import SubReconModel

/// subrecon: re-verifies stored App Store receipts with Apple and keeps subscriptions right.
@main
struct Subrecon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subrecon",
        abstract: "Re-verify stored App Store receipts with Apple and keep subscriptions up to date.",
        discussion: """
            Nightly, cron runs `subrecon run`; support runs `subrecon user USER_ID`; finance exports \
            CSV with `subrecon report`. Try `subrecon demo` first: it needs no secret and no network. \
            Settings come from SUBRECON_* environment variables; a flag wins over its variable. \
            `man subrecon` has every command's help on one page (installed by scripts/setup.sh).

            Examples:
              subrecon demo                             # first: no secret, no network
              subrecon import receipts.csv              # from the app server
              subrecon run                              # the nightly job
              subrecon user 8f14e45f --history          # support: what happened
              subrecon report subscriptions --output subscriptions.csv
              subrecon status
              subrecon run --help                       # each command's own examples
            """,
        version: SubReconVersion.text,
        subcommands: [
            ImportCommand.self, RunCommand.self, UserCommand.self, ReportCommand.self, DemoCommand.self,
            SimulatorCommand.self, StatusCommand.self, ParityCommand.self, LinkCommand.self, ForgetCommand.self,
            DbCommand.self, NotificationsCommand.self, AppleReportsCommand.self, WebhooksCommand.self,
        ])

    /// Parses, runs the command, and ends the process as `exit(for:)` says when it throws.
    static func main() async {
        if let problem = UnknownSubcommand.message(Array(CommandLine.arguments.dropFirst()), root: Self.self) {
            // ArgumentParser's own form for usage errors ("Error: …"), and its exit code as the contract maps it.
            FileHandle.standardError.write(Data((problem + "\n").utf8))
            exit(with: .configuration)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(for: error)
        }
    }
}
