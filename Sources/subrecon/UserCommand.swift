import ArgumentParser
import Foundation
import SubRecon

/// `subrecon user USER_ID`: support's "I paid but my subscription is gone".
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Re-verify all receipts of one user now and show their subscriptions before and after.",
        discussion: """
            Ignores the due policy and does not take the run lock, so it may run beside the nightly \
            job. Recorded as a run of kind `user`. Changed rows are marked with *. Unknown user: exit 2. \
            Support often has only Apple's id: --original-transaction-id finds the user(s) holding it.

            --history asks Apple nothing (no secret or key needed): it prints what the database \
            recorded about the user, oldest first: each change to their subscriptions (with the run \
            or notification that made it), each period Apple billed them and its refund, and each \
            App Store notification about them.

            Examples:
              subrecon user 8f14e45f
              subrecon user 8f14e45f --dry-run
              subrecon user --original-transaction-id 1000000741421650 --json
              subrecon user 8f14e45f --history
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var verification: VerificationOptions

    @Argument(help: "The app's user id, as imported.")
    var userID: String?

    @Option(help: "Find the user(s) by Apple's original_transaction_id instead.")
    var originalTransactionID: String?

    @Flag(help: "Verify and print what would change, but write nothing.")
    var dryRun = false

    @Flag(help: "Print JSON (for tools) instead of tables.")
    var json = false

    @Flag(help: "Print the user's changes, billed periods and notifications as stored, oldest first; Apple is not asked.")
    var history = false

    func validate() throws {
        if (userID == nil) == (originalTransactionID == nil) {
            throw ValidationError("give either USER_ID or --original-transaction-id (exactly one)")
        }
        if history && dryRun {
            throw ValidationError("--history verifies nothing, so --dry-run has no meaning with it")
        }
    }

    func run() async throws {
        let selection: CommandContext.UserSelection =
            if let originalTransactionID { .originalTransactionID(originalTransactionID) } else { .userID(userID ?? "") }
        if history {
            let histories = try await global.context().userHistory(selection)
            Console.out(json ? try UserHistoryText.json(histories) + "\n" : histories.map(UserHistoryText.text).joined(separator: "\n"))
            return
        }
        let result = try await global.context().reverifyUsers(selection, dryRun: dryRun, flags: verification.flags)
        if json {
            Console.out(try UserReverification.json(result.reports) + "\n")
        } else {
            Console.out(result.reports.map(\.text).joined(separator: "\n"))
        }
        try CommandEnded.with(result.exitStatus)
    }
}
