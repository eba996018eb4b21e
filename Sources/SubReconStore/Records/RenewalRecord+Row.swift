import GRDB
import SubReconModel

extension RenewalRecord: FetchableRecord {
    /// The columns `init(selectedRow:)` reads, in its order (see `StoredSubscription.selectedColumns`).
    package static let selectedColumns = """
        user_id, period_key, transaction_id, original_transaction_id, web_order_line_item_id, product_id,
        purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period, is_in_intro_offer_period,
        receipt_id, first_seen_run_id, first_seen_at, price_milliunits, currency, storefront, offer_type,
        offer_discount_type, offer_period, transaction_reason, ownership_type, environment, revocation_type,
        revocation_percentage, refund_milliunits, is_upgraded, ledger_signed_date
        """

    /// How many columns `selectedColumns` names (an insert binds them all).
    package static let insertColumnCount = selectedColumns.split(separator: ",").count

    /// The ledger's columns a revision sets (``ledgerValues`` in this order).
    package static let ledgerColumns = [
        "cancellation_date_ms", "price_milliunits", "currency", "storefront", "offer_type", "offer_discount_type",
        "offer_period", "transaction_reason", "ownership_type", "environment", "revocation_type",
        "revocation_percentage", "refund_milliunits", "is_upgraded", "ledger_signed_date",
    ]

    /// The values of ``ledgerColumns``.
    package var ledgerValues: [SQLArgument] {
        [
            SQLArgument(cancellationDateMs), SQLArgument(priceMilliunits), SQLArgument(currency), SQLArgument(storefront),
            SQLArgument(offerType), SQLArgument(offerDiscountType), SQLArgument(offerPeriod),
            SQLArgument(transactionReason), SQLArgument(ownershipType), SQLArgument(environment),
            SQLArgument(revocationType), SQLArgument(revocationPercentage), SQLArgument(refundMilliunits),
            .integer(isUpgraded ? 1 : 0), SQLArgument(ledgerSignedDateMs),
        ]
    }

    /// Every column of `selectedColumns`, in order, for an insert.
    package var insertValues: [SQLArgument] {
        [
            .text(userID), .text(periodKey), .text(transactionID), .text(originalTransactionID),
            SQLArgument(webOrderLineItemID), .text(productID), SQLArgument(purchaseDateMs), .integer(expiresDateMs),
            SQLArgument(cancellationDateMs), .integer(isTrialPeriod ? 1 : 0), .integer(isInIntroOfferPeriod ? 1 : 0),
            SQLArgument(receiptID), SQLArgument(firstSeenRunID), .integer(firstSeenAt), SQLArgument(priceMilliunits),
            SQLArgument(currency), SQLArgument(storefront), SQLArgument(offerType), SQLArgument(offerDiscountType),
            SQLArgument(offerPeriod), SQLArgument(transactionReason), SQLArgument(ownershipType),
            SQLArgument(environment), SQLArgument(revocationType), SQLArgument(revocationPercentage),
            SQLArgument(refundMilliunits), .integer(isUpgraded ? 1 : 0), SQLArgument(ledgerSignedDateMs),
        ]
    }

    /// The current row of `SELECT \(selectedColumns) FROM renewals`.
    package init(selectedColumnsOf row: DirectStatement) {
        self.init(
            userID: row.text(0), periodKey: row.text(1), transactionID: row.text(2),
            originalTransactionID: row.text(3), webOrderLineItemID: row.optionalText(4), productID: row.text(5),
            purchaseDateMs: row.optionalInt64(6), expiresDateMs: row.int64(7), cancellationDateMs: row.optionalInt64(8),
            isTrialPeriod: row.bool(9), isInIntroOfferPeriod: row.bool(10), receiptID: row.optionalInt64(11),
            firstSeenRunID: row.optionalInt64(12), firstSeenAt: row.int64(13), priceMilliunits: row.optionalInt64(14),
            currency: row.optionalText(15), storefront: row.optionalText(16), offerType: row.optionalInt64(17),
            offerDiscountType: row.optionalText(18), offerPeriod: row.optionalText(19),
            transactionReason: row.optionalText(20), ownershipType: row.optionalText(21), environment: row.optionalText(22),
            revocationType: row.optionalText(23), revocationPercentage: row.optionalInt64(24),
            refundMilliunits: row.optionalInt64(25), isUpgraded: row.bool(26), ledgerSignedDateMs: row.optionalInt64(27))
    }
}
