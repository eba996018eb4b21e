import Foundation

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The decoder subrecon used before `OnePassJSONScanner`: Foundation's JSONDecoder with tolerant
/// helpers. Kept, unchanged in what it does, only as the reference the single-pass decoder is
/// compared with (`DecoderEquivalence`); it lives here so that the worker doesn't carry it.
enum FoundationAnswerDecoder {
    static func decode(_ body: [UInt8]) throws(AppStoreAnswerError) -> VerifyReceiptResponse {
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(body)).value
        } catch {
            throw AppStoreAnswerError.notJSON(byteCount: body.count)
        }
    }

    private struct Answer: Decodable {
        var value: VerifyReceiptResponse

        enum CodingKeys: String, CodingKey {
            case status, environment, latest_receipt, latest_receipt_info, latest_expired_receipt_info
            case pending_renewal_info, receipt
            case is_retryable
            case is_retryable_hyphen = "is-retryable"
            case auto_renew_status, auto_renew_product_id, expiration_intent, is_in_billing_retry_period
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            guard let statusText = c.lenientString(.status), let status = Int(statusText) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .status, in: c, debugDescription: "the answer has no numeric status")
            }
            var malformed = 0
            let infoKey: CodingKeys = c.contains(.latest_receipt_info) ? .latest_receipt_info : .latest_expired_receipt_info
            let transactions = Self.oneOrMany(Transaction.self, c, infoKey, malformed: &malformed).map(\.value)
            var pendingRenewals = Self.oneOrMany(Renewal.self, c, .pending_renewal_info, malformed: &malformed).map(\.value)
            if pendingRenewals.isEmpty, c.contains(.auto_renew_status) || c.contains(.is_in_billing_retry_period) {
                pendingRenewals = [
                    PendingRenewal(
                        originalTransactionID: transactions.first?.originalTransactionID, productID: transactions.first?.productID,
                        autoRenewProductID: c.lenientString(.auto_renew_product_id),
                        autoRenewStatus: c.lenientBool(.auto_renew_status),
                        expirationIntent: c.lenientInt(.expiration_intent),
                        isInBillingRetryPeriod: c.lenientBool(.is_in_billing_retry_period))
                ]
            }
            let receipt = try? c.decodeIfPresent(ReceiptSummary.self, forKey: .receipt)
            value = VerifyReceiptResponse(
                rawStatus: status, rawEnvironment: c.lenientString(.environment),
                isRetryable: c.lenientBool(.is_retryable) ?? c.lenientBool(.is_retryable_hyphen),
                latestReceipt: c.lenientString(.latest_receipt), transactions: transactions, pendingRenewals: pendingRenewals,
                requestDateMs: receipt?.requestDateMs, bundleID: receipt?.bundleID, malformedEntryCount: malformed)
        }

        private static func oneOrMany<T: Decodable>(
            _ type: T.Type, _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, malformed: inout Int
        ) -> [T] {
            guard c.contains(key), (try? c.decodeNil(forKey: key)) == false else { return [] }
            if let many = try? c.decode([Lossy<T>].self, forKey: key) {
                var values: [T] = []
                for element in many {
                    if let value = element.value { values.append(value) } else { malformed += 1 }
                }
                return values
            }
            if let one = try? c.decode(T.self, forKey: key) { return [one] }
            malformed += 1
            return []
        }
    }

    private struct ReceiptSummary: Decodable {
        var requestDateMs: Int64?
        var bundleID: String?
        enum CodingKeys: String, CodingKey { case request_date_ms, request_date, bundle_id, bid }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            requestDateMs = c.lenientMilliseconds(.request_date_ms, fallback: .request_date)
            bundleID = c.lenientString(.bundle_id) ?? c.lenientString(.bid)
        }
    }

    private struct Transaction: Decodable {
        var value: AppleTransaction

        enum CodingKeys: String, CodingKey {
            case transaction_id, original_transaction_id, web_order_line_item_id, product_id
            case purchase_date_ms, purchase_date, expires_date_ms, expires_date
            case cancellation_date_ms, cancellation_date, cancellation_reason, is_upgraded
            case is_trial_period, is_in_intro_offer_period, in_app_ownership_type
            case subscription_group_identifier
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            value = AppleTransaction(
                transactionID: c.lenientString(.transaction_id), originalTransactionID: c.lenientString(.original_transaction_id),
                webOrderLineItemID: c.lenientString(.web_order_line_item_id), productID: c.lenientString(.product_id),
                purchaseDateMs: c.lenientMilliseconds(.purchase_date_ms, fallback: .purchase_date),
                expiresDateMs: c.lenientMilliseconds(.expires_date_ms, fallback: .expires_date),
                cancellationDateMs: c.lenientMilliseconds(.cancellation_date_ms, fallback: .cancellation_date),
                cancellationReason: c.lenientString(.cancellation_reason), isUpgraded: c.lenientBool(.is_upgraded) ?? false,
                isTrialPeriod: c.lenientBool(.is_trial_period), isInIntroOfferPeriod: c.lenientBool(.is_in_intro_offer_period),
                ownershipType: c.lenientString(.in_app_ownership_type),
                subscriptionGroupIdentifier: c.lenientString(.subscription_group_identifier))
        }
    }

    private struct Renewal: Decodable {
        var value: PendingRenewal

        enum CodingKeys: String, CodingKey {
            case original_transaction_id, product_id, auto_renew_product_id, auto_renew_status
            case expiration_intent, is_in_billing_retry_period
            case grace_period_expires_date_ms, grace_period_expires_date
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            value = PendingRenewal(
                originalTransactionID: c.lenientString(.original_transaction_id), productID: c.lenientString(.product_id),
                autoRenewProductID: c.lenientString(.auto_renew_product_id), autoRenewStatus: c.lenientBool(.auto_renew_status),
                expirationIntent: c.lenientInt(.expiration_intent),
                isInBillingRetryPeriod: c.lenientBool(.is_in_billing_retry_period),
                gracePeriodExpiresDateMs: c.lenientMilliseconds(.grace_period_expires_date_ms, fallback: .grace_period_expires_date))
        }
    }

    /// Wraps one array element so a bad element doesn't stop the decoder from moving to the next.
    private struct Lossy<T: Decodable>: Decodable {
        var value: T?
        init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
    }
}

/// The old tolerant readings: a key whatever its JSON type, `""` and `null` as absent.
extension KeyedDecodingContainer {
    fileprivate func lenientString(_ key: Key) -> String? {
        guard contains(key), (try? decodeNil(forKey: key)) == false else { return nil }
        if let text = try? decode(String.self, forKey: key) { return text.isEmpty ? nil : text }
        if let number = try? decode(Int64.self, forKey: key) { return String(number) }
        if let flag = try? decode(Bool.self, forKey: key) { return flag ? "true" : "false" }
        if let number = try? decode(Double.self, forKey: key), number.isFinite,
            number == number.rounded(), abs(number) < 9.0e15
        {
            return String(Int64(number))
        }
        return nil
    }

    fileprivate func lenientMilliseconds(_ msKey: Key, fallback: Key? = nil) -> Int64? {
        if let text = lenientString(msKey) { return AppleDate.milliseconds(fromDigits: text.utf8) }
        guard let fallback, let text = lenientString(fallback) else { return nil }
        return AppleDate.milliseconds(fromDigits: text.utf8) ?? AppleDate.milliseconds(fromGMT: text)
    }

    fileprivate func lenientBool(_ key: Key) -> Bool? {
        switch lenientString(key)?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return nil
        }
    }

    fileprivate func lenientInt(_ key: Key) -> Int? {
        guard let text = lenientString(key) else { return nil }
        return Int(text)
    }
}
