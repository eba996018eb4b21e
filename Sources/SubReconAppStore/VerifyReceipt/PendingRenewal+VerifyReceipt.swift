import SubReconModel

extension PendingRenewal {
    /// Reads one `pending_renewal_info` object (the scanner is at its `{`).
    package static func read(from scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> PendingRenewal {
        var sent = SentFields()
        try scanner.readObject(keys: Key.init(name:)) { key, scanner throws(OnePassJSONScanner.Malformed) in
            switch key {
            case .originalTransactionID: try scanner.readFirst(into: &sent.originalTransactionID)
            case .productID: try scanner.readFirst(into: &sent.productID)
            case .autoRenewProductID: try scanner.readFirst(into: &sent.autoRenewProductID)
            case .autoRenewStatus: try scanner.readFirst(into: &sent.autoRenewStatus)
            case .expirationIntent: try scanner.readFirst(into: &sent.expirationIntent)
            case .isInBillingRetryPeriod: try scanner.readFirst(into: &sent.isInBillingRetryPeriod)
            case .gracePeriodExpiresDateMs: try scanner.readFirst(into: &sent.gracePeriodExpiresDateMs)
            case .gracePeriodExpiresDate: try scanner.readFirst(into: &sent.gracePeriodExpiresDate)
            }
        }
        return PendingRenewal(
            originalTransactionID: sent.originalTransactionID.text, productID: sent.productID.text,
            autoRenewProductID: sent.autoRenewProductID.text, autoRenewStatus: sent.autoRenewStatus.flag,
            expirationIntent: sent.expirationIntent.integer, isInBillingRetryPeriod: sent.isInBillingRetryPeriod.flag,
            gracePeriodExpiresDateMs: sent.gracePeriodExpiresDateMs.milliseconds(orDate: sent.gracePeriodExpiresDate))
    }

    /// The keys read; every other key is skipped.
    private enum Key {
        case originalTransactionID, productID, autoRenewProductID, autoRenewStatus, expirationIntent
        case isInBillingRetryPeriod, gracePeriodExpiresDateMs, gracePeriodExpiresDate

        init?(name: UnsafeRawBufferPointer) {
            switch name.count {
            case 10 where name.isKey("product_id"): self = .productID
            case 17 where name.isKey("auto_renew_status"): self = .autoRenewStatus
            case 17 where name.isKey("expiration_intent"): self = .expirationIntent
            case 21 where name.isKey("auto_renew_product_id"): self = .autoRenewProductID
            case 23 where name.isKey("original_transaction_id"): self = .originalTransactionID
            case 25 where name.isKey("grace_period_expires_date"): self = .gracePeriodExpiresDate
            case 26 where name.isKey("is_in_billing_retry_period"): self = .isInBillingRetryPeriod
            case 28 where name.isKey("grace_period_expires_date_ms"): self = .gracePeriodExpiresDateMs
            default: return nil
            }
        }
    }

    /// The values sent for those keys, read into fields only once the object is complete.
    private struct SentFields {
        var originalTransactionID = ScannedValue.absent, productID = ScannedValue.absent
        var autoRenewProductID = ScannedValue.absent, autoRenewStatus = ScannedValue.absent
        var expirationIntent = ScannedValue.absent, isInBillingRetryPeriod = ScannedValue.absent
        var gracePeriodExpiresDateMs = ScannedValue.absent, gracePeriodExpiresDate = ScannedValue.absent
    }
}
