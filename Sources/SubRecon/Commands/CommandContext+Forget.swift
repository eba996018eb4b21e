import Foundation
import SubReconModel
import SubReconStore

extension CommandContext {
    /// `subrecon forget USER_ID`: a user who deleted their account. Their receipts,
    /// subscriptions, changes, run items and notification links are removed in one transaction;
    /// the ledger's billed periods stay under a pseudonym drawn at random (nothing in it derives
    /// from the user ID), so closed months do not move. A second call finds nothing and changes
    /// nothing. Nothing logged names the user. `dryRun`: the same work, taken back; the summary
    /// says what would be removed.
    public func forget(userID: String, dryRun: Bool = false) async throws -> ForgetSummary {
        guard !userID.isEmpty, !userID.contains(where: \.isNewline) else {
            throw ConfigurationError.other("forget needs the user ID exactly as it was imported")
        }
        _ = try webhookSettings()
        let defaultApp = try reportApps([]).defaultBundleID
        return try await closing(try await openStore()) { store in
            do {
                return try await store.forgetUser(
                    userID, pseudonym: Self.pseudonym(), dryRun: dryRun,
                    defaultApp: defaultApp, nowMs: clock())
            } catch let error as StoreError {
                throw ForgetFailure(error: error)
            }
        }
    }

    /// `forgotten-` and 128 random bits.
    static func pseudonym() -> String {
        "forgotten-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}

/// The store failed while forgetting: nothing was removed (one transaction). Exit 74.
public struct ForgetFailure: OperatorFacingError {
    let error: StoreError
    public var exitStatus: ExitStatus { .databaseFailed }
    public var description: String { "\(error); nothing was removed" }
}
