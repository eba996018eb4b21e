import Foundation

/// The parts of a verifyReceipt answer that subrecon uses, decoded tolerantly: numbers may be
/// strings, optional keys may be missing or `""`, unknown keys are ignored, and iOS 6-style bodies
/// (single objects, `latest_expired_receipt_info`) are mapped onto the same model.
/// `receipt.in_app` is never decoded: it is most of the body and says nothing current.
public struct VerifyReceiptResponse: Sendable, Decodable {
    public var rawStatus: Int
    public var status: AppleStatus { AppleStatus(rawValue: rawStatus) }
    public var rawEnvironment: String?
    public var environment: ReceiptEnvironment? { rawEnvironment.flatMap(ReceiptEnvironment.init(rawValue:)) }
    /// `is_retryable` or `is-retryable`, whichever was sent.
    public var isRetryable: Bool?
    public var latestReceipt: String?
    /// `latest_receipt_info` (or, in a legacy 21006 body, `latest_expired_receipt_info`).
    public var transactions: [AppleTransaction]
    public var pendingRenewals: [PendingRenewal]
    /// `receipt.request_date_ms`: Apple's clock when it answered.
    public var requestDateMs: Int64?
    public var bundleID: String?
    /// Entries of the transaction or renewal arrays that were not JSON objects. A body with any is
    /// nonsensical and is not reconciled.
    public var malformedEntryCount: Int

    public init(
        rawStatus: Int, rawEnvironment: String? = nil, isRetryable: Bool? = nil, latestReceipt: String? = nil,
        transactions: [AppleTransaction] = [], pendingRenewals: [PendingRenewal] = [],
        requestDateMs: Int64? = nil, bundleID: String? = nil, malformedEntryCount: Int = 0
    ) {
        self.rawStatus = rawStatus
        self.rawEnvironment = rawEnvironment
        self.isRetryable = isRetryable
        self.latestReceipt = latestReceipt
        self.transactions = transactions
        self.pendingRenewals = pendingRenewals
        self.requestDateMs = requestDateMs
        self.bundleID = bundleID
        self.malformedEntryCount = malformedEntryCount
    }

    enum CodingKeys: String, CodingKey {
        case status, environment, latest_receipt, latest_receipt_info, latest_expired_receipt_info
        case pending_renewal_info, receipt
        case is_retryable
        case is_retryable_hyphen = "is-retryable"
        // iOS 6-style 21006 bodies carry the renewal fields at the top level.
        case auto_renew_status, auto_renew_product_id, expiration_intent, is_in_billing_retry_period
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

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let statusText = c.lenientString(.status), let status = Int(statusText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: c, debugDescription: "the answer has no numeric status")
        }
        rawStatus = status
        rawEnvironment = c.lenientString(.environment)
        isRetryable = c.lenientBool(.is_retryable) ?? c.lenientBool(.is_retryable_hyphen)
        latestReceipt = c.lenientString(.latest_receipt)
        var malformed = 0
        let infoKey: CodingKeys = c.contains(.latest_receipt_info) ? .latest_receipt_info : .latest_expired_receipt_info
        transactions = Self.oneOrMany(AppleTransaction.self, c, infoKey, malformed: &malformed)
        pendingRenewals = Self.oneOrMany(PendingRenewal.self, c, .pending_renewal_info, malformed: &malformed)
        if pendingRenewals.isEmpty, c.contains(.auto_renew_status) || c.contains(.is_in_billing_retry_period) {
            let otid = transactions.first?.originalTransactionID
            pendingRenewals = [
                PendingRenewal(
                    originalTransactionID: otid, productID: transactions.first?.productID,
                    autoRenewProductID: c.lenientString(.auto_renew_product_id),
                    autoRenewStatus: c.lenientBool(.auto_renew_status),
                    expirationIntent: c.lenientInt(.expiration_intent),
                    isInBillingRetryPeriod: c.lenientBool(.is_in_billing_retry_period))
            ]
        }
        malformedEntryCount = malformed
        let receipt = try? c.decodeIfPresent(ReceiptSummary.self, forKey: .receipt)
        requestDateMs = receipt?.requestDateMs
        bundleID = receipt?.bundleID
    }

    /// Decodes an array of objects, or a single object (iOS 6 style). Elements that are not
    /// objects are counted, not fatal, so one odd entry can't crash or hide the rest.
    private static func oneOrMany<T: Decodable>(
        _ type: T.Type, _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, malformed: inout Int
    ) -> [T] {
        guard c.contains(key), (try? c.decodeNil(forKey: key)) == false else { return [] }
        if let many = try? c.decode([Lossy<T>].self, forKey: key) {
            var values: [T] = []
            values.reserveCapacity(many.count)
            for element in many {
                if let value = element.value { values.append(value) } else { malformed += 1 }
            }
            return values
        }
        if let one = try? c.decode(T.self, forKey: key) { return [one] }
        malformed += 1
        return []
    }

    /// Decodes JSON bytes. Throws `AppStoreAnswerError.notJSON` for anything that is not a JSON
    /// object with a numeric `status`.
    public static func decode(_ body: [UInt8]) throws(AppStoreAnswerError) -> VerifyReceiptResponse {
        do {
            return try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body))
        } catch {
            throw AppStoreAnswerError.notJSON(byteCount: body.count)
        }
    }
}

/// Wraps one array element so a bad element doesn't stop the decoder from moving to the next.
private struct Lossy<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: any Decoder) throws { value = try? T(from: decoder) }
}

/// An answer that can't be used at all.
public enum AppStoreAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON(byteCount: Int)

    public var description: String {
        switch self {
        case .notJSON(let count): "Apple's answer (\(count) bytes) was not a JSON object with a status"
        }
    }
}
