import ArgumentParser
import SubRecon
import SubReconModel

/// `subrecon forget USER_ID`: removes a user who deleted their account.
struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Remove a user who deleted their account; their billed money stays under a pseudonym.",
        discussion: """
            Removes the user's receipts, subscriptions, changes, run items and the links of \
            notifications to them, in one transaction. The ledger's billed periods stay, under a \
            pseudonym drawn at random, so revenue and metrics of closed months do not move. \
            Afterwards the user ID appears in no table and no report. Idempotent: a second run \
            finds nothing and exits 0. A billed period another user holds too (a purchase both \
            claimed) stays once, under that user. --dry-run prints what would be removed and \
            changes nothing.

            Example:
              subrecon forget user-1842
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The user ID, exactly as imported.")
    var userID: String

    @Flag(name: .customLong("dry-run"), help: "Print what would be removed; change nothing.")
    var dryRun = false

    func run() async throws {
        let summary = try await global.context().forget(userID: userID, dryRun: dryRun)
        if summary.foundNothing {
            Console.out("nothing is stored for that user; nothing changed\n")
            return
        }
        let (removed, unlinked, kept) = dryRun ? ("would be removed", "would no longer name them", "would be kept") : ("removed", "no longer name them", "kept")
        Console.out(
            (dryRun ? "dry run, nothing changed: forgetting the user: " : "forgot the user: ")
                + "\(summary.receipts) receipt(s), \(summary.subscriptions) subscription(s), "
                + "\(summary.subscriptionChanges) change(s) and \(summary.runItems) run item(s) \(removed); "
                + "\(summary.notificationLinks) notification(s) and \(summary.runs) run(s) \(unlinked); "
                + "\(summary.ledgerPeriods) billed period(s) \(kept) under a pseudonym"
                + (summary.ledgerPeriodsHeldByOthers > 0
                    ? ", \(summary.ledgerPeriodsHeldByOthers) \(dryRun ? "would stay" : "stay") under the other user who holds them" : "")
                + "\n")
    }
}
