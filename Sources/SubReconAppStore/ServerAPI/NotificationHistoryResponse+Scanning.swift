import SubReconModel

/// A Get Notification History page read with the one-pass scanner every other Apple body goes
/// through, as strictly as Foundation's JSONDecoder read it before: an object; `notificationHistory`
/// an array (or null) of objects each with a string `signedPayload`; `hasMore` a boolean and
/// `paginationToken` a string (or null). Anything else refuses the whole page; unknown keys
/// (`sendAttempts`) are skipped but validated. Of repeated keys the first counts.
extension ServerAPIWire.NotificationHistoryResponse {
    private static let keys: [StaticString] = ["notificationHistory", "hasMore", "paginationToken"]

    package static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self {
        try ServerAPIScanning.scan(bytes) { scanner throws(OnePassJSONScanner.Malformed) in
            var hasMore = ScannedValue.absent, token = ScannedValue.absent
            var items: [Item]?
            var historySeen = false
            try scanner.readObject(keys: { $0.index(in: keys) }) { key, scanner throws(OnePassJSONScanner.Malformed) in
                switch key {
                case 0:
                    guard !historySeen else { _ = try scanner.readValue(); return }
                    historySeen = true
                    items = try readItems(&scanner)
                case 1: try scanner.readFirst(into: &hasMore)
                default: try scanner.readFirst(into: &token)
                }
            }
            return Self(notificationHistory: items, hasMore: try hasMore.boolean(), paginationToken: try token.string())
        }
    }

    /// `[{"signedPayload": "…", …}, …]` or null.
    private static func readItems(_ scanner: inout OnePassJSONScanner) throws(OnePassJSONScanner.Malformed) -> [Item]? {
        switch try scanner.peek() {
        case UInt8(ascii: "["):
            var items: [Item] = []
            try scanner.readArray { scanner throws(OnePassJSONScanner.Malformed) in
                guard try scanner.peek() == UInt8(ascii: "{") else { throw OnePassJSONScanner.Malformed() }
                var payload = ScannedValue.absent
                try scanner.readObject(keys: { $0.isKey("signedPayload") ? 0 : nil }) { _, scanner throws(OnePassJSONScanner.Malformed) in
                    try scanner.readFirst(into: &payload)
                }
                guard let text = try payload.string() else { throw OnePassJSONScanner.Malformed() }
                items.append(Item(signedPayload: text))
            }
            return items
        case UInt8(ascii: "n"):
            guard try scanner.readValue().kind == .null else { throw OnePassJSONScanner.Malformed() }
            return nil
        default:
            throw OnePassJSONScanner.Malformed()
        }
    }
}

extension ScannedValue {
    /// A boolean field read strictly: absent or null is nil, `true`/`false` their value, anything
    /// else (`"true"`, `1`) makes the body malformed.
    fileprivate func boolean() throws(OnePassJSONScanner.Malformed) -> Bool? {
        switch kind {
        case .absent, .null: return nil
        case .true: return true
        case .false: return false
        default: throw OnePassJSONScanner.Malformed()
        }
    }
}
