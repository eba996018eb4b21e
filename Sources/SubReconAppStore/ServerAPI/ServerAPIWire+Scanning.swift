import SubReconModel

/// The Server API's bodies read in one pass with the scanner that reads verifyReceipt answers:
/// Foundation's JSONDecoder walked each body's JWS text once per decode, three decodes per
/// subscription, a large share of a worker's CPU in server-api mode (measured: docs/performance.md,
/// "App Store Server API mode"). Only the fields subrecon uses are read; every other value is
/// skipped but validated, and a malformed body is refused as a whole.
package enum ServerAPIScanning {
    package struct Malformed: Error {}

    package static func scan<T>(_ bytes: [UInt8], _ read: (inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> T)
        throws(Malformed) -> T
    {
        let result = bytes.withUnsafeBytes { raw -> T? in
            var scanner = OnePassJSONScanner(raw)
            scanner.skipByteOrderMark()
            do {
                guard try scanner.peek() == UInt8(ascii: "{") else { return nil }
                let value = try read(&scanner)
                try scanner.expectEnd()
                return value
            } catch {
                return nil
            }
        }
        guard let result else { throw Malformed() }
        return result
    }

    /// A flat object (a signed payload): the first value of each of `keys`, in that order, handed
    /// to `build` while the bytes they point into are alive.
    package static func scanFlatObject<T>(
        _ bytes: [UInt8], keys: [StaticString],
        _ build: ([ScannedValue]) throws(OnePassJSONScanner.Malformed) -> T
    ) throws(Malformed) -> T {
        try scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var values = [ScannedValue](repeating: .absent, count: keys.count)
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                try scanner.readFirst(into: &values[key])
            }
            return try build(values)
        }
    }
}

extension ScannedValue {
    /// A number field read strictly (dates, codes): absent or null is nil, a whole number is its
    /// value, anything else makes the body malformed (JSONDecoder refused it the same way), so a
    /// garbled expiry can never pass for "no expiry".
    package func number() throws(OnePassJSONScanner.Malformed) -> Int64? {
        switch kind {
        case .absent, .null: return nil
        default:
            guard let value = wholeNumber else { throw OnePassJSONScanner.Malformed() }
            return value
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The first of `names` these key bytes spell, as its index.
    package func index(in names: [StaticString]) -> Int? {
        names.firstIndex { isKey($0) }
    }
}

extension ServerAPIWire.StatusResponse {
    private static let keys: [StaticString] = ["environment", "bundleId", "appAppleId", "data"]
    private static let groupKeys: [StaticString] = ["subscriptionGroupIdentifier", "lastTransactions"]
    private static let itemKeys: [StaticString] = [
        "originalTransactionId", "status", "signedTransactionInfo", "signedRenewalInfo",
    ]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var environment = ScannedValue.absent, bundleID = ScannedValue.absent, appID = ScannedValue.absent
            var groups: [Group]?
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                switch key {
                case 0: try scanner.readFirst(into: &environment)
                case 1: try scanner.readFirst(into: &bundleID)
                case 2: try scanner.readFirst(into: &appID)
                default:
                    guard groups == nil, try scanner.peek() == UInt8(ascii: "[") else { _ = try scanner.readValue(); return }
                    var read: [Group] = []
                    try scanner.readArray { scanner throws(OnePassJSONScanner.Malformed) in
                        guard try scanner.peek() == UInt8(ascii: "{") else { _ = try scanner.readValue(); return }
                        read.append(try readGroup(&scanner))
                    }
                    groups = read
                }
            }
            return Self(
                environment: environment.text, bundleId: bundleID.text, appAppleId: appID.wholeNumber, data: groups)
        }
    }

    private static func readGroup(_ scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> Group {
        var identifier = ScannedValue.absent
        var items: [LastTransaction]?
        try scanner.readObject(keys: { $0.index(in: groupKeys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
            if key == 0 { return try scanner.readFirst(into: &identifier) }
            guard items == nil, try scanner.peek() == UInt8(ascii: "[") else { _ = try scanner.readValue(); return }
            var read: [LastTransaction] = []
            try scanner.readArray { scanner throws(OnePassJSONScanner.Malformed) in
                guard try scanner.peek() == UInt8(ascii: "{") else { _ = try scanner.readValue(); return }
                var otid = ScannedValue.absent, status = ScannedValue.absent
                var transaction = ScannedValue.absent, renewal = ScannedValue.absent
                try scanner.readObject(keys: { $0.index(in: itemKeys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                    switch key {
                    case 0: try scanner.readFirst(into: &otid)
                    case 1: try scanner.readFirst(into: &status)
                    case 2: try scanner.readFirst(into: &transaction)
                    default: try scanner.readFirst(into: &renewal)
                    }
                }
                read.append(
                    LastTransaction(
                        originalTransactionId: otid.text, status: try status.number().map { Int($0) },
                        signedTransactionInfo: transaction.text, signedRenewalInfo: renewal.text))
            }
            items = read
        }
        return Group(subscriptionGroupIdentifier: identifier.text, lastTransactions: items)
    }
}

extension ServerAPIWire.HistoryResponse {
    private static let keys: [StaticString] = [
        "revision", "hasMore", "bundleId", "appAppleId", "environment", "signedTransactions",
    ]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var values = [ScannedValue](repeating: .absent, count: 5)
            var signed: [String]?
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                guard key == 5 else { return try scanner.readFirst(into: &values[key]) }
                guard signed == nil, try scanner.peek() == UInt8(ascii: "[") else { _ = try scanner.readValue(); return }
                var read: [String] = []
                try scanner.readArray { scanner throws(OnePassJSONScanner.Malformed) in
                    if let text = try scanner.readValue().text { read.append(text) }
                }
                signed = read
            }
            return Self(
                revision: values[0].text, hasMore: values[1].flag, bundleId: values[2].text,
                appAppleId: values[3].wholeNumber, environment: values[4].text, signedTransactions: signed)
        }
    }
}

extension SignedTransactionPayload {
    private static let keys: [StaticString] = [
        "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
        "subscriptionGroupIdentifier", "purchaseDate", "expiresDate", "type", "appAccountToken", "inAppOwnershipType",
        "signedDate", "revocationDate", "revocationReason", "isUpgraded", "offerType", "offerDiscountType", "environment",
        "price", "currency", "storefront", "offerPeriod", "transactionReason", "revocationType", "revocationPercentage",
        "appTransactionId",
    ]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scanFlatObject(bytes, keys: keys) { v throws(OnePassJSONScanner.Malformed) in
            var problems: [String] = []
            // Money is read leniently: a malformed amount is left unknown (and logged), while the
            // fields state depends on stay strict.
            let price = v[18].money(named: "price", in: 0...Int64.max, problems: &problems)
            let percentage = v[24].money(named: "revocationPercentage", in: 0...100_000, problems: &problems)
            // A refund the ledger cannot price (its amount stays empty): said, as for a malformed field.
            let revocationType = v[23].text
            if v[12].isPresent, let revocationType {
                if revocationType == "REFUND_PRORATED", percentage == nil, !v[24].isPresent {
                    problems.append("REFUND_PRORATED without revocationPercentage: the refund's amount is unknown")
                } else if !["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"].contains(revocationType) {
                    problems.append("revocationType \(revocationType.prefix(64)) is not one the ledger prices: the refund's amount is unknown")
                }
            }
            return Self(
                transactionId: v[0].text, originalTransactionId: v[1].text, webOrderLineItemId: v[2].text,
                bundleId: v[3].text, productId: v[4].text, subscriptionGroupIdentifier: v[5].text,
                purchaseDate: try v[6].number(), expiresDate: try v[7].number(), type: v[8].text, appAccountToken: v[9].text,
                inAppOwnershipType: v[10].text, signedDate: try v[11].number(), revocationDate: try v[12].number(),
                revocationReason: try v[13].number().map { Int($0) }, isUpgraded: v[14].flag,
                offerType: try v[15].number().map { Int($0) }, offerDiscountType: v[16].text, environment: v[17].text,
                price: price, currency: v[19].moneyText(named: "currency", problems: &problems),
                storefront: v[20].moneyText(named: "storefront", problems: &problems),
                offerPeriod: v[21].moneyText(named: "offerPeriod", problems: &problems),
                transactionReason: v[22].moneyText(named: "transactionReason", problems: &problems),
                revocationType: v[23].moneyText(named: "revocationType", problems: &problems),
                revocationPercentage: percentage, appTransactionId: v[25].text, moneyProblems: problems.isEmpty ? nil : problems)
        }
    }
}

extension ScannedValue {
    /// A money number: a JSON integer within `range`, else nil with the problem noted (absent or
    /// null is simply unknown). `9.99` or `"9990"` is not Apple's form for milliunits: unknown.
    package func money(named name: String, in range: ClosedRange<Int64>, problems: inout [String]) -> Int64? {
        switch kind {
        case .absent, .null: return nil
        case .integer:
            if let value = wholeNumber, range.contains(value) { return value }
        default: break
        }
        problems.append("\(name) is not an integer in \(range.lowerBound)...\(range.upperBound)")
        return nil
    }

    /// A money string field (a code or duration): kept as sent when it is short text; anything else
    /// (a number, an object, 65+ bytes) is left unknown with the problem noted.
    package func moneyText(named name: String, problems: inout [String]) -> String? {
        switch kind {
        case .absent, .null: return nil
        case .string, .escapedString:
            if let text, text.utf8.count <= 64 { return text }
            if text == nil { return nil }
        default: break
        }
        problems.append("\(name) is not a short string")
        return nil
    }
}

extension SignedRenewalPayload {
    private static let keys: [StaticString] = [
        "originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "expirationIntent",
        "isInBillingRetryPeriod", "gracePeriodExpiresDate", "signedDate", "environment", "appAccountToken",
    ]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scanFlatObject(bytes, keys: keys) { v throws(OnePassJSONScanner.Malformed) in
            return Self(
                originalTransactionId: v[0].text, productId: v[1].text, autoRenewProductId: v[2].text,
                autoRenewStatus: try v[3].number().map { Int($0) }, expirationIntent: try v[4].number().map { Int($0) },
                isInBillingRetryPeriod: v[5].flag, gracePeriodExpiresDate: try v[6].number(), signedDate: try v[7].number(),
                environment: v[8].text, appAccountToken: v[9].text)
        }
    }
}

extension ServerAPIWire.ErrorBody {
    package static func scan(_ bytes: [UInt8]) -> Self? {
        try? ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var code = ScannedValue.absent
            try scanner.readObject(keys: { $0.isKey("errorCode") ? 0 : nil }) { _, scanner throws(OnePassJSONScanner.Malformed) in
                try scanner.readFirst(into: &code)
            }
            return Self(errorCode: code.wholeNumber.map { Int($0) }, errorMessage: nil)
        }
    }
}
