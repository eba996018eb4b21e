import SubReconModel
import SubReconStore

extension CommandContext {
    /// Whose receipts `subrecon user` verifies again.
    public enum UserSelection: Sendable {
        /// The app's user id, as imported.
        case userID(String)
        /// Every user holding Apple's original_transaction_id in a verified receipt.
        case originalTransactionID(String)
    }

    /// What `subrecon user` found: one report per user, and the command's exit status (the
    /// worst of its runs').
    public struct UserResult: Sendable {
        public var reports: [UserReverification]
        public var exitStatus: ExitStatus
    }

    /// `subrecon user`: verifies every receipt of the selected user(s) now, as a run of kind
    /// `user` (no due policy, no run lock), and shows their subscriptions before and after; in a
    /// dry run the "after" is the stored rows with the would-be writes laid over. A run Apple
    /// stopped says why on the console as it happens.
    public func reverifyUsers(_ selection: UserSelection, dryRun: Bool, flags: Settings.Flags) async throws -> UserResult {
        let job = try await liveWiring(flags)
        let store = job.store
        do {
            let users = try await selection.users(in: store)
            var result = UserResult(reports: [], exitStatus: .success)
            for user in users {
                guard try await store.countReceipts(.user(user), nowMs: 0) > 0 else {
                    throw ConfigurationError.unknownUser(user)
                }
                let before = try await store.subscriptions(ofUser: user)
                let collector = UpdateCollector()
                let summary = try await job.run(
                    .init(kind: .user, selection: .user(user), dryRun: dryRun), observers: [collector])
                let after = dryRun ? collector.projected(before: before) : try await store.subscriptions(ofUser: user)
                result.reports.append(
                    UserReverification(
                        userID: user, dryRun: dryRun, items: collector.items, before: before, after: after,
                        newPeriods: collector.newPeriods))
                // Why Apple stopped the run (21004, 21000, 401) was logged once as it happened.
                if summary.exitStatus.rawValue > result.exitStatus.rawValue { result.exitStatus = summary.exitStatus }
            }
            return result
        } catch let error as StoreError {
            throw DatabaseFailure(error)
        }
    }

    /// `subrecon user --history`: the selected user(s)' changes, billed periods and notifications
    /// as stored, oldest first. Opens only the database: no secret or key, Apple is not asked.
    /// A user nothing is stored for is an unknown user (exit 2), as for `user`.
    public func userHistory(_ selection: UserSelection) async throws -> [UserHistory] {
        try await closing(try await openStore()) { store in
            do {
                let users = try await selection.users(in: store)
                var histories: [UserHistory] = []
                for user in users {
                    let history = try await store.history(ofUser: user)
                    guard history.known else { throw ConfigurationError.unknownUser(user) }
                    histories.append(history)
                }
                return histories
            } catch let error as StoreError {
                throw DatabaseFailure(error)
            }
        }
    }
}

extension CommandContext.UserSelection {
    /// The users selected: the one named, or every user holding the original transaction id
    /// (none is a configuration error: support mistyped it, or no receipt carries it yet).
    func users(in store: any SubscriptionStore) async throws -> [String] {
        switch self {
        case .originalTransactionID(let otid):
            let users = try await store.users(holdingOriginalTransactionID: otid)
            guard !users.isEmpty else {
                throw ConfigurationError.other(
                    "no user holds original_transaction_id \(otid) (it appears in no verified receipt)")
            }
            return users
        case .userID(let user):
            return [user]
        }
    }
}
