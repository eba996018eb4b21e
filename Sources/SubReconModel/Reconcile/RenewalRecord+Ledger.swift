/// A renewal record's ledger columns as one answer's period gives them.
extension RenewalRecord {
    /// Takes `period`'s ledger: ownership, environment and the upgrade mark from any answer; the
    /// money fields only from signed data (`period.money`), which replace whatever was stored
    /// (a refund Apple reversed leaves no revocation behind). The refund follows from the result.
    package mutating func takeLedger(of period: AppleTransaction, environment: ReceiptEnvironment) {
        ownershipType = period.ownershipType ?? ownershipType
        self.environment = environment.rawValue
        isUpgraded = period.isUpgraded
        if let money = period.money {
            cancellationDateMs = period.cancellationDateMs
            priceMilliunits = money.priceMilliunits
            currency = money.currency
            storefront = money.storefront
            offerType = money.offerType.map(Int64.init)
            offerDiscountType = money.offerDiscountType
            offerPeriod = money.offerPeriod
            transactionReason = money.transactionReason
            revocationType = money.revocationType
            revocationPercentage = money.revocationPercentage
            ledgerSignedDateMs = money.signedDateMs ?? 0
        }
        refundMilliunits = RefundAmount.milliunits(
            priceMilliunits: priceMilliunits, currency: currency, cancellationDateMs: cancellationDateMs,
            isUpgraded: isUpgraded, revocationType: revocationType, revocationPercentage: revocationPercentage)
    }

    /// Whether `other` holds newer signed money data than this record may be replaced by: the
    /// stored data was signed after `other`'s.
    package func hasNewerLedger(than other: RenewalRecord) -> Bool {
        guard let stored = ledgerSignedDateMs else { return false }
        return stored > (other.ledgerSignedDateMs ?? .min)
    }

    /// The columns a revision writes, compared, but for when Apple signed them: every check signs
    /// anew, and rewriting an unchanged period each night would tax the hot path for nothing.
    package func hasSameLedger(as other: RenewalRecord) -> Bool {
        cancellationDateMs == other.cancellationDateMs && priceMilliunits == other.priceMilliunits
            && currency == other.currency && storefront == other.storefront && offerType == other.offerType
            && offerDiscountType == other.offerDiscountType && offerPeriod == other.offerPeriod
            && transactionReason == other.transactionReason && ownershipType == other.ownershipType
            && environment == other.environment && revocationType == other.revocationType
            && revocationPercentage == other.revocationPercentage && refundMilliunits == other.refundMilliunits
            && isUpgraded == other.isUpgraded
    }
}
