import Foundation
import SubReconModel

/// Who holds what: a purchase linked to its user or moved between users, and a user forgotten.
public protocol IdentityStore: Sendable {
    /// Users whose subscriptions or renewal records carry this original_transaction_id.
    func users(holdingOriginalTransactionID otid: String) async throws(StoreError) -> [String]
    /// `subrecon link`, once Apple has the token: `token` registered as `userID`'s for the app
    /// `bundleID` and, unless the user already holds the purchase `otid`, the purchase stored as
    /// theirs (a receipt known by its transaction id), in one transaction. What importing that
    /// row would do: a second link changes nothing.
    func recordLink(userID: String, originalTransactionID otid: String, bundleID: String?, token: String, nowMs: Int64)
        async throws(StoreError)
    /// `link --move`: takes the purchase `otid` from each of `holders` for `userID`, in one
    /// transaction: each holder's subscription row goes (recorded as a change under a `user` run
    /// for `userID`), their billed periods of it become the user's (once), their receipts known
    /// by its transaction id go, Apple's notifications about it follow; `token`, when given, is
    /// registered to the user instead of whoever had it. Returns the changes recorded.
    func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    /// Removes every row naming the user, in one transaction; the ledger's periods stay under
    /// `pseudonym` (`subrecon forget`). With `dryRun` the same statements run and are rolled back:
    /// the summary says exactly what would go, and nothing changes.
    /// The user's events go too (pending ones never sent), and one `user.forgotten` event is
    /// written per app of the user's receipts (`defaultApp` for receipts naming none); a user with
    /// no receipt left gets none.
    func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool, defaultApp: String?, nowMs: Int64)
        async throws(StoreError) -> ForgetSummary
}

extension IdentityStore {
    /// Forgets the user (`dryRun` false).
    public func forgetUser(_ userID: String, pseudonym: String) async throws(StoreError) -> ForgetSummary {
        try await forgetUser(userID, pseudonym: pseudonym, dryRun: false)
    }

    /// Forgets the user, or (`dryRun`) says what would go.
    public func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool) async throws(StoreError) -> ForgetSummary {
        try await forgetUser(
            userID, pseudonym: pseudonym, dryRun: dryRun, defaultApp: nil,
            nowMs: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
