import ArgumentParser
import SubRecon
import SubReconModel

/// `subrecon link USER_ID TRANSACTION_ID`: ties a purchase made without a token to its user.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Tie a purchase made without an app account token to its user, at Apple and here.",
        discussion: """
            Asks Apple (the App Store Server API's Set App Account Token) to attach the user's \
            stored token, or a new one then stored as theirs, to the purchase; records the purchase \
            as the user's; and reconciles the user. TRANSACTION_ID is the original transaction id, \
            or any transaction id subrecon has stored. Apple's refusal is shown as Apple's error \
            (exit 1); a user with nothing stored is exit 2.

            Example:
              subrecon link user-1842 2000000123456789
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The user ID, exactly as imported.")
    var userID: String

    @Argument(help: "The purchase's original transaction id, or any transaction id subrecon has stored.")
    var transactionID: String

    @OptionGroup var verification: ServerAPIOptions

    func run() async throws {
        let result = try await global.context().link(userID: userID, transactionID: transactionID, flags: verification.flags)
        Console.out(
            "linked original transaction \(result.originalTransactionID)\(result.bundleID.map { " (\($0))" } ?? "") "
                + "to the user with \(result.newToken ? "a new" : "their") app account token \(result.token) "
                + "(Apple, \(result.environment.rawValue))\n\(result.summary.line)\n")
        try CommandEnded.with(result.summary.exitStatus)
    }
}
