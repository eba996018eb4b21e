import SubReconModel

/// A verified `signedRenewalInfo` (Apple's 'JWSRenewalInfoDecodedPayload' page), decoded. It has
/// no `bundleId`: it is bound to its transaction by original transaction id and environment.
package struct SignedRenewalPayload: Decodable, Equatable {
    package var originalTransactionId: String?
    package var productId: String?
    package var autoRenewProductId: String?
    package var autoRenewStatus: Int?
    package var expirationIntent: Int?
    package var isInBillingRetryPeriod: Bool?
    package var gracePeriodExpiresDate: Int64?
    package var signedDate: Int64?
    package var environment: String?
    package var appAccountToken: String? = nil

    /// Our model of the renewal info: verifyReceipt's `pending_renewal_info` fields. An absent
    /// field stays unknown (nil), never false.
    package var pendingRenewal: PendingRenewal {
        PendingRenewal(
            originalTransactionID: originalTransactionId, productID: productId, autoRenewProductID: autoRenewProductId,
            autoRenewStatus: autoRenewStatus.map { $0 == 1 }, expirationIntent: expirationIntent,
            isInBillingRetryPeriod: isInBillingRetryPeriod, gracePeriodExpiresDateMs: gracePeriodExpiresDate,
            appAccountToken: appAccountToken?.lowercased())
    }
}
