import SubReconModel

/// The parts of a verifyReceipt answer that subrecon uses, decoded tolerantly: numbers may be
/// strings, optional keys may be missing or `""`, unknown keys are ignored, and iOS 6-style bodies
/// (single objects, `latest_expired_receipt_info`) are mapped onto the same model.
/// `receipt.in_app` is never decoded: it is most of the body and says nothing current.
public struct VerifyReceiptResponse: Sendable, Equatable {
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
}

extension VerifyReceiptResponse {
    /// Decodes JSON bytes in one pass (`OnePassJSONScanner`). Throws `AppStoreAnswerError.notJSON`
    /// for anything that is not a well-formed JSON object with a numeric `status`.
    public static func decode(_ body: [UInt8]) throws(AppStoreAnswerError) -> VerifyReceiptResponse {
        let answer = body.withUnsafeBytes { bytes -> VerifyReceiptResponse? in
            var scanner = OnePassJSONScanner(bytes)
            return try? read(from: &scanner)
        }
        guard let answer else { throw AppStoreAnswerError.notJSON(byteCount: body.count) }
        return answer
    }

    /// Reads the whole body; nil when it is JSON but has no numeric status.
    private static func read(from scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> VerifyReceiptResponse? {
        var sent = SentFields()
        scanner.skipByteOrderMark()
        // Duplicate keys: the first one counts (as in Foundation's JSONDecoder); later ones are only validated.
        try scanner.readObject(keys: Key.init(name:)) { key, scanner throws(OnePassJSONScanner.Malformed) in
            switch key {
            case .status: try scanner.readFirst(into: &sent.status)
            case .environment: try scanner.readFirst(into: &sent.environment)
            case .latestReceipt: try scanner.readFirst(into: &sent.latestReceipt)
            case .isRetryable: try scanner.readFirst(into: &sent.isRetryable)
            case .isRetryableHyphen: try scanner.readFirst(into: &sent.isRetryableHyphen)
            case .autoRenewStatus: try scanner.readFirst(into: &sent.autoRenewStatus)
            case .autoRenewProductID: try scanner.readFirst(into: &sent.autoRenewProductID)
            case .expirationIntent: try scanner.readFirst(into: &sent.expirationIntent)
            case .isInBillingRetryPeriod: try scanner.readFirst(into: &sent.isInBillingRetryPeriod)
            case .latestReceiptInfo: try readFirstEntries(&sent.latestReceiptInfo, AppleTransaction.read, &scanner)
            case .latestExpiredReceiptInfo: try readFirstEntries(&sent.latestExpiredReceiptInfo, AppleTransaction.read, &scanner)
            case .pendingRenewalInfo: try readFirstEntries(&sent.pendingRenewalInfo, PendingRenewal.read, &scanner)
            case .receipt:
                // A receipt that is not an object tells nothing; the rest of the answer still counts.
                let isFirst = !sent.receiptSent
                sent.receiptSent = true
                if isFirst, try scanner.peek() == UInt8(ascii: "{") {
                    sent.receipt = try ReceiptSummary.read(from: &scanner)
                } else {
                    _ = try scanner.readValue()
                }
            }
        }
        try scanner.expectEnd()
        return sent.response()
    }

    /// An array of objects, or a single object (iOS 6 style), read with `readOne`. Elements that
    /// are not objects are counted, not fatal, so one odd entry can't crash or hide the rest.
    private static func readFirstEntries<Entry>(
        _ slot: inout Entries<Entry>?, _ readOne: (inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> Entry,
        _ scanner: inout OnePassJSONScanner
    ) throws(OnePassJSONScanner.Malformed) {
        var entries = Entries<Entry>()
        switch try scanner.peek() {
        case UInt8(ascii: "["):
            try scanner.readArray { scanner throws(OnePassJSONScanner.Malformed) in
                if try scanner.peek() == UInt8(ascii: "{") {
                    entries.values.append(try readOne(&scanner))
                } else {
                    _ = try scanner.readValue()
                    entries.malformed += 1
                }
            }
        case UInt8(ascii: "{"):
            entries.values.append(try readOne(&scanner))
        default:
            if try scanner.readValue().kind != .null { entries.malformed = 1 }
        }
        if slot == nil { slot = entries }
    }

    private struct Entries<Entry> {
        var values: [Entry] = []
        var malformed = 0
    }

    /// The keys read at the top level; every other key (`exception`, `in_app` at any level, …) is skipped.
    private enum Key {
        case status, environment, latestReceipt, latestReceiptInfo, latestExpiredReceiptInfo, pendingRenewalInfo
        case receipt, isRetryable, isRetryableHyphen
        // iOS 6-style 21006 bodies carry the renewal fields at the top level.
        case autoRenewStatus, autoRenewProductID, expirationIntent, isInBillingRetryPeriod

        init?(name: UnsafeRawBufferPointer) {
            switch name.count {
            case 6 where name.isKey("status"): self = .status
            case 7 where name.isKey("receipt"): self = .receipt
            case 11 where name.isKey("environment"): self = .environment
            case 12 where name.isKey("is_retryable"): self = .isRetryable
            case 12 where name.isKey("is-retryable"): self = .isRetryableHyphen
            case 14 where name.isKey("latest_receipt"): self = .latestReceipt
            case 17 where name.isKey("auto_renew_status"): self = .autoRenewStatus
            case 17 where name.isKey("expiration_intent"): self = .expirationIntent
            case 19 where name.isKey("latest_receipt_info"): self = .latestReceiptInfo
            case 20 where name.isKey("pending_renewal_info"): self = .pendingRenewalInfo
            case 21 where name.isKey("auto_renew_product_id"): self = .autoRenewProductID
            case 26 where name.isKey("is_in_billing_retry_period"): self = .isInBillingRetryPeriod
            case 27 where name.isKey("latest_expired_receipt_info"): self = .latestExpiredReceiptInfo
            default: return nil
            }
        }
    }

    /// What the top level sent, turned into the answer once the body has been read to its end.
    private struct SentFields {
        var status = ScannedValue.absent, environment = ScannedValue.absent, latestReceipt = ScannedValue.absent
        var isRetryable = ScannedValue.absent, isRetryableHyphen = ScannedValue.absent
        var autoRenewStatus = ScannedValue.absent, autoRenewProductID = ScannedValue.absent
        var expirationIntent = ScannedValue.absent, isInBillingRetryPeriod = ScannedValue.absent
        var latestReceiptInfo: Entries<AppleTransaction>?
        var latestExpiredReceiptInfo: Entries<AppleTransaction>?
        var pendingRenewalInfo: Entries<PendingRenewal>?
        var receiptSent = false
        var receipt: ReceiptSummary?

        func response() -> VerifyReceiptResponse? {
            guard let statusText = status.text, let rawStatus = Int(statusText) else { return nil }
            // `latest_expired_receipt_info` only stands in when `latest_receipt_info` is not sent at all.
            let transactions = latestReceiptInfo ?? latestExpiredReceiptInfo ?? Entries()
            let renewals = pendingRenewalInfo ?? Entries()
            var pendingRenewals = renewals.values
            if pendingRenewals.isEmpty, autoRenewStatus.isPresent || isInBillingRetryPeriod.isPresent {
                pendingRenewals = [
                    PendingRenewal(
                        originalTransactionID: transactions.values.first?.originalTransactionID,
                        productID: transactions.values.first?.productID, autoRenewProductID: autoRenewProductID.text,
                        autoRenewStatus: autoRenewStatus.flag, expirationIntent: expirationIntent.integer,
                        isInBillingRetryPeriod: isInBillingRetryPeriod.flag)
                ]
            }
            return VerifyReceiptResponse(
                rawStatus: rawStatus, rawEnvironment: environment.text,
                isRetryable: isRetryable.flag ?? isRetryableHyphen.flag, latestReceipt: latestReceipt.text,
                transactions: transactions.values, pendingRenewals: pendingRenewals,
                requestDateMs: receipt?.requestDateMs, bundleID: receipt?.bundleID,
                malformedEntryCount: transactions.malformed + renewals.malformed)
        }
    }

    /// `receipt.request_date_ms` (or `request_date`) and `receipt.bundle_id` (or iOS 6's `bid`).
    private struct ReceiptSummary {
        var requestDateMs: Int64?
        var bundleID: String?

        static func read(from scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> ReceiptSummary {
            var requestDateMs = ScannedValue.absent, requestDate = ScannedValue.absent
            var bundleID = ScannedValue.absent, bid = ScannedValue.absent
            try scanner.readObject(keys: Key.init(name:)) { key, scanner throws(OnePassJSONScanner.Malformed) in
                switch key {
                case .requestDateMs: try scanner.readFirst(into: &requestDateMs)
                case .requestDate: try scanner.readFirst(into: &requestDate)
                case .bundleID: try scanner.readFirst(into: &bundleID)
                case .bid: try scanner.readFirst(into: &bid)
                }
            }
            return ReceiptSummary(
                requestDateMs: requestDateMs.milliseconds(orDate: requestDate), bundleID: bundleID.text ?? bid.text)
        }

        private enum Key {
            case requestDateMs, requestDate, bundleID, bid

            init?(name: UnsafeRawBufferPointer) {
                switch name.count {
                case 3 where name.isKey("bid"): self = .bid
                case 9 where name.isKey("bundle_id"): self = .bundleID
                case 12 where name.isKey("request_date"): self = .requestDate
                case 15 where name.isKey("request_date_ms"): self = .requestDateMs
                default: return nil
                }
            }
        }
    }
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
