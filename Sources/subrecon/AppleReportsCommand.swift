import ArgumentParser

/// `subrecon apple-reports fetch|import`: Apple's own record of what it billed (the daily Summary
/// Sales Report), stored beside the ledger for `subrecon report apple-parity`.
struct AppleReportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-reports",
        abstract: "Store Apple's daily Sales and Trends reports: download them, or import files downloaded by hand.",
        discussion: """
            Examples:
              subrecon apple-reports fetch               # the last days not stored yet
              subrecon apple-reports import S_D_80012345_20261120.txt
              subrecon report apple-parity               # then match them with the ledger
            """,
        subcommands: [AppleReportsFetchCommand.self, AppleReportsImportCommand.self])
}
