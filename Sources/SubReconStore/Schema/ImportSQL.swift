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
    /// A token for a user; a token already stored stays its first user's (the count tells).
    package static let registerToken = """
        INSERT INTO app_account_tokens (app_account_token, user_id, bundle_id, registered_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (app_account_token) DO NOTHING
        """
    /// The user a token belongs to, when no receipt or subscription knows the original transaction.
    package static let tokenUserOfUnknownTransaction = """
        SELECT user_id FROM app_account_tokens WHERE app_account_token = ?
            AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE original_transaction_id = ?)
            AND NOT EXISTS (SELECT 1 FROM receipts WHERE transaction_id = ?)
        """
}
