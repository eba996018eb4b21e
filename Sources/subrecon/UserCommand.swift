import ArgumentParser
import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon user USER_ID`: support's "I paid but my subscription is gone".
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Re-verify all receipts of one user now and show their subscriptions before and after.",
        discussion: """
            Ignores the due policy and does not take the run lock, so it may run beside the nightly \
            job. Recorded as a run of kind `user`. Changed rows are marked with *. Unknown user: exit 2. \
            Support often has only Apple's id: --original-transaction-id finds the user(s) holding it.

            Examples:
              subrecon user 8f14e45f
              subrecon user 8f14e45f --dry-run
              subrecon user --original-transaction-id 1000000741421650 --json
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

    func validate() throws {
        if (userID == nil) == (originalTransactionID == nil) {
            throw ValidationError("give either USER_ID or --original-transaction-id (exactly one)")
        }
    }

    func run() async throws {
        let logger = global.makeLogger()
        let job = try await verification.liveJob(global, logger: logger)
        let database = job.store
        do {
            let users: [String]
            if let otid = originalTransactionID {
                users = try await database.users(holdingOriginalTransactionID: otid)
                guard !users.isEmpty else {
                    Console.error("no user holds original_transaction_id \(otid) (it appears in no verified receipt)")
                    throw ExitCode(.configuration)
                }
            } else {
                users = [userID!]
            }
            var reports: [UserReverification] = []
            var exitCode: Int32 = 0
            for user in users {
                guard try await database.countReceipts(.user(user), nowMs: 0) > 0 else {
                    Console.error(ConfigurationError.unknownUser(user).description)
                    throw ExitCode(.configuration)
                }
                let before = try await database.subscriptions(ofUser: user)
                let collector = UpdateCollector()
                let summary = try await job.run(
                    .init(kind: .user, selection: .user(user), dryRun: dryRun), observers: [collector])
                let after = dryRun ? collector.projected(before: before) : try await database.subscriptions(ofUser: user)
                reports.append(
                    UserReverification(userID: user, dryRun: dryRun, items: collector.items, before: before, after: after))
                if let problem = summary.stoppedBy { Console.error(problem.description) }
                exitCode = max(exitCode, summary.exitCode)
            }
            if json {
                Console.out(try UserReverification.json(reports) + "\n")
            } else {
                Console.out(reports.map(\.text).joined(separator: "\n"))
            }
            if exitCode != 0 { throw ExitCode(exitCode) }
        } catch let error as StoreError {
            Console.error(error.description)
            throw ExitCode(.databaseFailed)
        } catch let error as RunFailure {
            Console.error(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}
