/// `subrecon import`'s statements shared by both stores.
package enum ImportSQL {
    /// The receipt a user's receipt version belongs to, when the user already has it.
    package static let knownVersion = "SELECT receipt_id FROM receipt_versions WHERE user_id = ? AND receipt_sha256 = ?"
    /// A receipt stored without an app gets the one an import names; one that has an app keeps it.
    package static let nameApp = "UPDATE receipts SET bundle_id = ? WHERE id = ? AND bundle_id IS NULL"
    /// `nameApp` for the receipt of a user's version (PostgreSQL, in one statement); returns its id.
    package static let nameAppOfVersion = """
        UPDATE receipts SET bundle_id = ? WHERE bundle_id IS NULL AND id =
            (SELECT receipt_id FROM receipt_versions WHERE user_id = ? AND receipt_sha256 = ?)
        RETURNING id
        """
    /// Receipts that name no app.
    package static let receiptsWithoutApp = "SELECT COUNT(*) FROM receipts WHERE bundle_id IS NULL"
}
