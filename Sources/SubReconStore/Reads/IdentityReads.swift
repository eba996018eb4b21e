/// Who a purchase belongs to, as `subrecon link` and the token-holder linking after a run read it:
/// each statement of `IdentitySQL` and `PurchaseHoldersSQL` that reads, with its bindings and columns.
extension SnapshotQuerying {
    /// How many rows (receipts and tokens) are stored for the user, and their first registered token.
    public func storedUser(_ userID: String) async throws -> (rows: Int64, firstToken: String?) {
        let user = try await all(IdentitySQL.user, [.text(userID), .text(userID), .text(userID)]) { row in
            (try row.integer("stored") ?? 0, try row.text("token"))
        }.first
        return (user?.0 ?? 0, user?.1)
    }

    /// A transaction id as stored (a subscription's original or latest transaction, a billed
    /// period's, a receipt's): its original transaction id and the app of the receipt holding it.
    public func storedTransaction(_ transactionID: String) async throws -> (originalTransactionID: String, bundleID: String?)? {
        try await all(
            IdentitySQL.transaction, [.text(transactionID), .text(transactionID), .text(transactionID), .text(transactionID)]
        ) { row in (try row.requiredText("original_transaction_id"), try row.text("bundle_id")) }.first
    }

    /// How a stored subscription's buyer holds it (`PURCHASED`, `FAMILY_SHARED`, `ASSIGNED`); nil when unknown.
    public func ownershipType(ofPurchase otid: String) async throws -> String? {
        try await all(IdentitySQL.ownership, [.text(otid)]) { try $0.text("ownership_type") }.first ?? nil
    }

    /// The users other than `userID` who hold the purchase `otid` (given as `transactionID`), first
    /// claimant first, and whether an app receipt's data is what ties each to it.
    public func purchaseHolders(_ otid: String, transactionID: String, otherThan userID: String) async throws
        -> [(user: String, byReceiptData: Bool)]
    {
        try await all(
            PurchaseHoldersSQL.holders, [.text(otid), .text(userID), .text(transactionID), .text(otid), .text(userID)]
        ) { row in (user: try row.requiredText("user_id"), byReceiptData: (try row.integer("by_receipt_data") ?? 0) != 0) }
    }

    /// The `appAccountToken` Apple's signed data gave the purchase, as stored (the latest verified).
    public func storedAppAccountToken(ofPurchase otid: String) async throws -> String? {
        try await all(PurchaseHoldersSQL.storedToken, [.text(otid)]) { try $0.text("app_account_token") }.first ?? nil
    }

    /// The user who registered `token`; nil when nobody did.
    public func userRegistering(token: String) async throws -> String? {
        try await all(PurchaseHoldersSQL.tokenUser, [.text(token)]) { try $0.requiredText("user_id") }.first
    }

    /// Purchases the run found whose `appAccountToken` another user registered, who does not hold
    /// them yet: the token says whose they are. By user, then original transaction id.
    public func tokenHeldPurchases(ofRun runID: Int64) async throws
        -> [(originalTransactionID: String, userID: String, bundleID: String?)]
    {
        try await all(IdentitySQL.tokenHoldersOfRun, [.integer(runID)]) { row in
            (try row.requiredText("original_transaction_id"), try row.requiredText("user_id"), try row.text("bundle_id"))
        }
    }
}
