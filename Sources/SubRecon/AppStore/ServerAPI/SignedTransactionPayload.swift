/// A verified `signedTransactionInfo` (JWSTransactionDecodedPayload, reference §6), decoded.
struct SignedTransactionPayload: Decodable, Equatable {
    var transactionId: String?
    var originalTransactionId: String?
    var webOrderLineItemId: String?
    var bundleId: String?
    var productId: String?
    var subscriptionGroupIdentifier: String?
    var purchaseDate: Int64?
    var expiresDate: Int64?
    var type: String?
    var appAccountToken: String?
    var inAppOwnershipType: String?
    var signedDate: Int64?
    var revocationDate: Int64?
    var revocationReason: Int?
    var isUpgraded: Bool?
    var offerType: Int?
    var offerDiscountType: String?
    var environment: String?

    /// Our model of the transaction (reference §9.1): the same fields verifyReceipt gives.
    var appleTransaction: AppleTransaction {
        let introductory = offerType == 1
        return AppleTransaction(
            transactionID: transactionId, originalTransactionID: originalTransactionId,
            webOrderLineItemID: webOrderLineItemId, productID: productId, purchaseDateMs: purchaseDate,
            expiresDateMs: expiresDate, cancellationDateMs: revocationDate,
            cancellationReason: revocationReason.map(String.init), isUpgraded: isUpgraded ?? false,
            isTrialPeriod: introductory && offerDiscountType == "FREE_TRIAL",
            isInIntroOfferPeriod: introductory && (offerDiscountType == "PAY_AS_YOU_GO" || offerDiscountType == "PAY_UP_FRONT"),
            ownershipType: inAppOwnershipType, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            appAccountToken: appAccountToken?.lowercased())
    }
}
