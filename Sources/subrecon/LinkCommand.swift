import ArgumentParser
import SubRecon
import SubReconModel

/// `subrecon link USER_ID TRANSACTION_ID [--move]`: ties a purchase to its user.
struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Tie a purchase to its user, at Apple (its app account token) and here.",
        discussion: """
            Asks Apple (the App Store Server API's Set App Account Token) to attach the user's \
            stored token, or a new one then stored as theirs, to the purchase; records the purchase \
            as the user's; and reconciles the user. TRANSACTION_ID is the original transaction id, \
            or any transaction id subrecon has stored. A purchase that already carries a token at \
            Apple keeps it: the token is registered as the user's and Apple is not asked to change \
            it. A purchase another user holds (or whose token another user registered) is refused, \
            exit 2, naming them, unless --move, which takes it from them (their subscription row \
            goes, recorded as a change). Apple's refusal is shown as Apple's error (exit 1); a user \
            with nothing stored is exit 2.

            Examples:
              subrecon link user-1842 2000000123456789
              subrecon link user-1842 2000000123456789 --move
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The user ID, exactly as imported.")
    var userID: String

    @Argument(help: "The purchase's original transaction id, or any transaction id subrecon has stored.")
    var transactionID: String

    @Flag(name: .customLong("move"), help: "Take the purchase from the other user who holds it.")
    var move = false

    @OptionGroup var verification: ServerAPIOptions

    func run() async throws {
        let result = try await global.context().link(
            userID: userID, transactionID: transactionID, move: move, flags: verification.flags)
        let purchase = "original transaction \(result.originalTransactionID)\(result.bundleID.map { " (\($0))" } ?? "")"
        let environment = result.environment.map { ", \($0.rawValue)" } ?? ""
        var lines: [String] = []
        if !result.movedFrom.isEmpty {
            lines.append("took \(purchase) from user(s) \(result.movedFrom.map { "\"\($0)\"" }.joined(separator: ", ")) (recorded as a change)")
        }
        switch result.tokenSource {
        case .setStored, .setNew:
            lines.append(
                "linked \(purchase) to the user with \(result.tokenSource == .setNew ? "a new" : "their") app account token "
                    + "\(result.token) (Apple\(environment))")
        case .alreadyAtApple:
            lines.append(
                "linked \(purchase) to the user: it already carries app account token \(result.token) at Apple\(environment), "
                    + "now registered as theirs (Apple was not asked to change it)")
        }
        lines.append(result.summary.line)
        Console.out(lines.joined(separator: "\n") + "\n")
        try CommandEnded.with(result.summary.exitStatus)
    }
}
