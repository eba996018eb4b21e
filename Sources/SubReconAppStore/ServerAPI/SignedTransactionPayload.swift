import Logging
import SubReconModel

/// A verified `signedTransactionInfo` (Apple's 'JWSTransactionDecodedPayload' page), decoded.
package struct SignedTransactionPayload: Decodable, Equatable {
    package var transactionId: String?
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var bundleId: String?
    package var productId: String?
    package var subscriptionGroupIdentifier: String?
    package var purchaseDate: Int64?
    package var expiresDate: Int64?
    package var type: String?
    package var appAccountToken: String?
    package var inAppOwnershipType: String?
    package var signedDate: Int64?
    package var revocationDate: Int64?
    package var revocationReason: Int?
    package var isUpgraded: Bool?
    package var offerType: Int?
    package var offerDiscountType: String?
    package var environment: String?
    package var price: Int64?
    package var currency: String?
    package var storefront: String?
    package var offerPeriod: String?
    package var transactionReason: String?
    package var revocationType: String?
    package var revocationPercentage: Int64?
    /// The app download the purchase belongs to (App Store Server API 1.15).
    package var appTransactionId: String? = nil
    /// Money fields that were present but malformed (left nil above), for the log; nil when none.
    /// The state still applies: a bad price must never cost a customer their subscription.
    package var moneyProblems: [String]?

    /// Our model of the transaction: the same fields verifyReceipt gives (Apple's
    /// 'responseBody.Latest_receipt_info' page), read from the signed transaction.
    package var appleTransaction: AppleTransaction {
        let introductory = offerType == 1
        return AppleTransaction(
            transactionID: transactionId, originalTransactionID: originalTransactionId,
            webOrderLineItemID: webOrderLineItemId, productID: productId, purchaseDateMs: purchaseDate,
            expiresDateMs: expiresDate, cancellationDateMs: revocationDate,
            cancellationReason: revocationReason.map(String.init), isUpgraded: isUpgraded ?? false,
            isTrialPeriod: introductory && offerDiscountType == "FREE_TRIAL",
            isInIntroOfferPeriod: introductory && (offerDiscountType == "PAY_AS_YOU_GO" || offerDiscountType == "PAY_UP_FRONT"),
            ownershipType: inAppOwnershipType, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            appAccountToken: appAccountToken?.lowercased(), money: money, appTransactionID: appTransactionId)
    }

    /// The period's money as Apple signed it.
    package var money: TransactionMoney {
        TransactionMoney(
            priceMilliunits: price, currency: currency, storefront: storefront, offerType: offerType,
            offerDiscountType: offerDiscountType, offerPeriod: offerPeriod, transactionReason: transactionReason,
            revocationType: revocationType, revocationPercentage: revocationPercentage, signedDateMs: signedDate)
    }
}

extension SignedTransactionPayload {
    /// Malformed money fields leave the ledger's amounts empty; the operator should know why.
    package func logMoneyProblems(_ logger: Logger) {
        guard let moneyProblems else { return }
        logger.warning(
            "a signed transaction's money fields are malformed; its state applies, those fields stay empty",
            metadata: [
                "transaction.id": "\(transactionId ?? "")", "problems": "\(moneyProblems.joined(separator: "; "))",
            ])
    }
}
