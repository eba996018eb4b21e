import SubReconModel

extension ImportRow {
    /// What `link` records, as the row an import of it would be: the token registered as the
    /// user's for the app and, unless the user already holds the purchase, the purchase stored as
    /// a receipt known by its transaction id. Both stores run it through their import, so a
    /// linked purchase is stored exactly as an imported one.
    package static func link(
        userID: String, originalTransactionID otid: String, userHoldsIt: Bool, bundleID: String?, token: String
    ) -> ImportRow {
        ImportRow(
            line: 0, userID: userID, receiptData: "", transactionID: userHoldsIt ? nil : otid, bundleID: bundleID,
            appAccountToken: token)
    }
}
