import Logging

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
    var price: Int64?
    var currency: String?
    var storefront: String?
    var offerPeriod: String?
    var transactionReason: String?
    var revocationType: String?
    var revocationPercentage: Int64?
    /// Money fields that were present but malformed (left nil above), for the log; nil when none.
    /// The state still applies: a bad price must never cost a customer their subscription.
    var moneyProblems: [String]?

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
            appAccountToken: appAccountToken?.lowercased(), money: money)
    }

    /// The period's money as Apple signed it.
    var money: TransactionMoney {
        TransactionMoney(
            priceMilliunits: price, currency: currency, storefront: storefront, offerType: offerType,
            offerDiscountType: offerDiscountType, offerPeriod: offerPeriod, transactionReason: transactionReason,
            revocationType: revocationType, revocationPercentage: revocationPercentage, signedDateMs: signedDate)
    }
}

extension SignedTransactionPayload {
    /// Malformed money fields leave the ledger's amounts empty; the operator should know why.
    func logMoneyProblems(_ logger: Logger) {
        guard let moneyProblems else { return }
        logger.warning(
            "a signed transaction's money fields are malformed; its state applies, those fields stay empty",
            metadata: [
                "transaction.id": "\(transactionId ?? "")", "problems": "\(moneyProblems.joined(separator: "; "))",
            ])
    }
}
