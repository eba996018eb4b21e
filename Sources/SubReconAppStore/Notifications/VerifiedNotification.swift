import SubReconModel

/// A notification whose signature, chain, app and environment checked out, with its signed
/// transaction and renewal info verified too (when it carries them).
package struct VerifiedNotification: Sendable {
    package var payload: NotificationPayload
    package var environment: ReceiptEnvironment?
    package var transaction: SignedTransactionPayload?
    package var renewal: SignedRenewalPayload?
    /// The app it is for (one of ours: the payload's bundle id, checked).
    package var bundleID: String?

    package init(
        payload: NotificationPayload, environment: ReceiptEnvironment? = nil, transaction: SignedTransactionPayload? = nil,
        renewal: SignedRenewalPayload? = nil
    ) {
        self.payload = payload
        self.environment = environment
        self.transaction = transaction
        self.renewal = renewal
    }
}
