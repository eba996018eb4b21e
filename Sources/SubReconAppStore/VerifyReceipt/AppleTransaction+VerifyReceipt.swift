import SubReconModel

extension AppleTransaction {
    /// Reads one `latest_receipt_info` object (the scanner is at its `{`).
    package static func read(from scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> AppleTransaction {
        var sent = SentFields()
        try scanner.readObject(keys: Key.init(name:)) { key, scanner throws(OnePassJSONScanner.Malformed) in
            switch key {
            case .transactionID: try scanner.readFirst(into: &sent.transactionID)
            case .originalTransactionID: try scanner.readFirst(into: &sent.originalTransactionID)
            case .webOrderLineItemID: try scanner.readFirst(into: &sent.webOrderLineItemID)
            case .productID: try scanner.readFirst(into: &sent.productID)
            case .purchaseDateMs: try scanner.readFirst(into: &sent.purchaseDateMs)
            case .purchaseDate: try scanner.readFirst(into: &sent.purchaseDate)
            case .expiresDateMs: try scanner.readFirst(into: &sent.expiresDateMs)
            case .expiresDate: try scanner.readFirst(into: &sent.expiresDate)
            case .cancellationDateMs: try scanner.readFirst(into: &sent.cancellationDateMs)
            case .cancellationDate: try scanner.readFirst(into: &sent.cancellationDate)
            case .cancellationReason: try scanner.readFirst(into: &sent.cancellationReason)
            case .isUpgraded: try scanner.readFirst(into: &sent.isUpgraded)
            case .isTrialPeriod: try scanner.readFirst(into: &sent.isTrialPeriod)
            case .isInIntroOfferPeriod: try scanner.readFirst(into: &sent.isInIntroOfferPeriod)
            case .ownershipType: try scanner.readFirst(into: &sent.ownershipType)
            case .subscriptionGroupIdentifier: try scanner.readFirst(into: &sent.subscriptionGroupIdentifier)
            case .appAccountToken: try scanner.readFirst(into: &sent.appAccountToken)
            }
        }
        return AppleTransaction(
            transactionID: sent.transactionID.text, originalTransactionID: sent.originalTransactionID.text,
            webOrderLineItemID: sent.webOrderLineItemID.text, productID: sent.productID.text,
            purchaseDateMs: sent.purchaseDateMs.milliseconds(orDate: sent.purchaseDate),
            expiresDateMs: sent.expiresDateMs.milliseconds(orDate: sent.expiresDate),
            cancellationDateMs: sent.cancellationDateMs.milliseconds(orDate: sent.cancellationDate),
            cancellationReason: sent.cancellationReason.text, isUpgraded: sent.isUpgraded.flag ?? false,
            isTrialPeriod: sent.isTrialPeriod.flag, isInIntroOfferPeriod: sent.isInIntroOfferPeriod.flag,
            ownershipType: sent.ownershipType.text, subscriptionGroupIdentifier: sent.subscriptionGroupIdentifier.text,
            appAccountToken: sent.appAccountToken.text)
    }

    /// The keys read; every other key is skipped.
    private enum Key {
        case transactionID, originalTransactionID, webOrderLineItemID, productID, purchaseDateMs, purchaseDate
        case expiresDateMs, expiresDate, cancellationDateMs, cancellationDate, cancellationReason, isUpgraded
        case isTrialPeriod, isInIntroOfferPeriod, ownershipType, subscriptionGroupIdentifier, appAccountToken

        init?(name: UnsafeRawBufferPointer) {
            // The length picks the candidates, so most keys cost one comparison.
            switch name.count {
            case 10 where name.isKey("product_id"): self = .productID
            case 11 where name.isKey("is_upgraded"): self = .isUpgraded
            case 12 where name.isKey("expires_date"): self = .expiresDate
            case 13 where name.isKey("purchase_date"): self = .purchaseDate
            case 14 where name.isKey("transaction_id"): self = .transactionID
            case 15 where name.isKey("expires_date_ms"): self = .expiresDateMs
            case 15 where name.isKey("is_trial_period"): self = .isTrialPeriod
            case 16 where name.isKey("purchase_date_ms"): self = .purchaseDateMs
            case 17 where name.isKey("cancellation_date"): self = .cancellationDate
            case 19 where name.isKey("cancellation_reason"): self = .cancellationReason
            case 20 where name.isKey("cancellation_date_ms"): self = .cancellationDateMs
            case 17 where name.isKey("app_account_token"): self = .appAccountToken
            case 21 where name.isKey("in_app_ownership_type"): self = .ownershipType
            case 22 where name.isKey("web_order_line_item_id"): self = .webOrderLineItemID
            case 23 where name.isKey("original_transaction_id"): self = .originalTransactionID
            case 24 where name.isKey("is_in_intro_offer_period"): self = .isInIntroOfferPeriod
            case 29 where name.isKey("subscription_group_identifier"): self = .subscriptionGroupIdentifier
            default: return nil
            }
        }
    }

    /// The values sent for those keys, read into fields only once the object is complete.
    private struct SentFields {
        var transactionID = ScannedValue.absent, originalTransactionID = ScannedValue.absent
        var webOrderLineItemID = ScannedValue.absent, productID = ScannedValue.absent
        var purchaseDateMs = ScannedValue.absent, purchaseDate = ScannedValue.absent
        var expiresDateMs = ScannedValue.absent, expiresDate = ScannedValue.absent
        var cancellationDateMs = ScannedValue.absent, cancellationDate = ScannedValue.absent
        var cancellationReason = ScannedValue.absent, isUpgraded = ScannedValue.absent
        var isTrialPeriod = ScannedValue.absent, isInIntroOfferPeriod = ScannedValue.absent
        var ownershipType = ScannedValue.absent, subscriptionGroupIdentifier = ScannedValue.absent
        var appAccountToken = ScannedValue.absent
    }
}
