import ArgumentParser
import Foundation
import SubRecon

/// `subrecon parity`: both Apple APIs on the same receipts, every differing field listed.
struct ParityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parity",
        abstract: "Ask verifyReceipt and the App Store Server API about the same due receipts; list what differs.",
        discussion: """
            Writes nothing. Needs both sets of credentials: the shared secret and the Server API \
            key, key ID, issuer ID and bundle ID. Prints CSV (user_id, original_transaction_id, \
            field, verify_receipt_value, server_api_value), one row per differing field, then a \
            summary on stderr. Exit 0 when nothing differs, 1 when something does or when no \
            receipt was compared (after a nightly run none is due: use --all).

            Examples:
              subrecon parity --limit 1000 --output parity.csv
              subrecon parity --all --limit 1000
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Option(parsing: .unconditional, help: "Compare at most this many receipts (due ones; any with --all).")
    var limit: Int?

    @Flag(help: "Compare every stored receipt, due or not (after a nightly run none is due).")
    var all = false

    @Option(help: "Write the CSV here instead of stdout.")
    var output: String?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, not \(limit)") }
    }

    func run() async throws {
        let result = try await global.context().parity(limit: limit, all: all, outputPath: output, flags: verification.flags)
        Console.error(result.summaryLine)
        try CommandEnded.with(result.exitStatus)
    }
}
