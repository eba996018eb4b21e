/// A verified `signedRenewalInfo` (JWSRenewalInfoDecodedPayload, reference §7), decoded. It has
/// no `bundleId`: it is bound to its transaction by original transaction id and environment.
struct SignedRenewalPayload: Decodable, Equatable {
    var originalTransactionId: String?
    var productId: String?
    var autoRenewProductId: String?
    var autoRenewStatus: Int?
    var expirationIntent: Int?
    var isInBillingRetryPeriod: Bool?
    var gracePeriodExpiresDate: Int64?
    var signedDate: Int64?
    var environment: String?

    /// Our model of the renewal info: verifyReceipt's `pending_renewal_info` fields. An absent
    /// field stays unknown (nil), never false.
    var pendingRenewal: PendingRenewal {
        PendingRenewal(
            originalTransactionID: originalTransactionId, productID: productId, autoRenewProductID: autoRenewProductId,
            autoRenewStatus: autoRenewStatus.map { $0 == 1 }, expirationIntent: expirationIntent,
            isInBillingRetryPeriod: isInBillingRetryPeriod, gracePeriodExpiresDateMs: gracePeriodExpiresDate)
    }
}
