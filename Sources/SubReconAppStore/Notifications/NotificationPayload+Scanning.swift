import SubReconModel

/// A notification's body and decoded payload read in one pass with the Server API's scanner.
/// Foundation's JSONDecoder walked the nested JWS text twice per notification (body, then
/// payload), a visible share of the receiver's CPU (docs/performance.md, "Notifications
/// receiver"). Types are read as strictly as JSONDecoder read them: a string where a string
/// belongs, a whole number where a number does, an object or null where an object does; anything
/// else refuses the whole payload.
extension NotificationPayload {
    private static let keys: [StaticString] = [
        "notificationType", "subtype", "notificationUUID", "version", "signedDate",
        "data", "summary", "externalPurchaseToken", "appData", "unclaimInfo",
    ]
    private static let contentKeys: [StaticString] = [
        "appAppleId", "bundleId", "environment", "signedTransactionInfo", "signedRenewalInfo", "status",
    ]
    private static let envelopeKeys: [StaticString] = ["appAppleId", "bundleId", "environment"]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var values = [ScannedValue](repeating: .absent, count: 5)
            var data: Contents?
            var envelopes: [Envelope?] = [nil, nil, nil, nil]
            var seen = 0  // a bit per key
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                // The verifier has refused payloads with a repeated member already; first one wins here.
                guard seen & (1 << key) == 0 else { _ = try scanner.readValue(); return }
                seen |= 1 << key
                switch key {
                case 0..<5: try scanner.readFirst(into: &values[key])
                case 5:
                    data = try readObjectOrNull(&scanner, keys: contentKeys) { v throws(OnePassJSONScanner.Malformed) in
                        Contents(
                            appAppleId: try v[0].number(), bundleId: try v[1].string(), environment: try v[2].string(),
                            signedTransactionInfo: try v[3].string(), signedRenewalInfo: try v[4].string(),
                            status: try v[5].int())
                    }
                default:
                    envelopes[key - 6] = try readObjectOrNull(&scanner, keys: envelopeKeys) { v throws(OnePassJSONScanner.Malformed) in
                        Envelope(appAppleId: try v[0].number(), bundleId: try v[1].string(), environment: try v[2].string())
                    }
                }
            }
            guard let type = try values[0].string(), let uuid = try values[2].string(), let signedDate = try values[4].number()
            else { throw OnePassJSONScanner.Malformed() }
            return Self(
                notificationType: type, subtype: try values[1].string(), notificationUUID: uuid,
                version: try values[3].string(), signedDate: signedDate, data: data,
                summary: envelopes[0], externalPurchaseToken: envelopes[1], appData: envelopes[2],
                unclaimInfo: envelopes[3])
        }
    }

    /// An object member's value: nil for null, the scalars named by `keys` handed to `build` for an
    /// object, malformed for anything else.
    private static func readObjectOrNull<T>(
        _ scanner: inout OnePassJSONScanner, keys: [StaticString],
        _ build: ([ScannedValue]) throws(OnePassJSONScanner.Malformed) -> T
    ) throws(OnePassJSONScanner.Malformed) -> T? {
        switch try scanner.peek() {
        case UInt8(ascii: "{"):
            var values = [ScannedValue](repeating: .absent, count: keys.count)
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                try scanner.readFirst(into: &values[key])
            }
            return try build(values)
        case UInt8(ascii: "n"):
            guard try scanner.readValue().kind == .null else { throw OnePassJSONScanner.Malformed() }
            return nil
        default:
            throw OnePassJSONScanner.Malformed()
        }
    }
}

extension NotificationBody {
    /// The body Apple POSTs: an object whose `signedPayload` is a string; other members are ignored.
    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var payload = ScannedValue.absent
            try scanner.readObject(keys: { $0.isKey("signedPayload") ? 0 : nil }) { _, scanner throws(OnePassJSONScanner.Malformed) in
                try scanner.readFirst(into: &payload)
            }
            guard let text = try payload.string() else { throw OnePassJSONScanner.Malformed() }
            return Self(signedPayload: text)
        }
    }
}

extension ScannedValue {
    /// A string field read strictly: absent or null is nil, a string is its text (empty included),
    /// anything else makes the payload malformed.
    package func string() throws(OnePassJSONScanner.Malformed) -> String? {
        switch kind {
        case .absent, .null: return nil
        case .string: return String(decoding: bytes, as: UTF8.self)
        case .escapedString: return unescapedText()
        default: throw OnePassJSONScanner.Malformed()
        }
    }

    /// An `Int` field read strictly, as `number()` reads an `Int64` one.
    fileprivate func int() throws(OnePassJSONScanner.Malformed) -> Int? {
        try number().map { Int($0) }
    }
}
