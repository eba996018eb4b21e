/// The account inside a simulated receipt, as compact text. Hand-written instead of
/// JSONEncoder/JSONDecoder because the simulator decodes one account and encodes one
/// (`latest_receipt`) per request, and through the JSON codecs those were a large part of a
/// request's cost (docs/performance.md, "Earlier figures behind the code's choices").
///
///     text         = account *(";" subscription) "#" checksum
///     account      = id "," environment "," ownership "," receiptCreatedMs "," fixedStatus ","
///                    paddingBytes "," revision ["," storefront ["," bundleID "," appAccountToken]]
///     subscription = productID "," periodMs "," firstPurchaseMs "," trialPeriodMs "," cancelAtMs ","
///                    billingFailureAtMs "," graceDays "," recoverAtMs "," refundAtMs "," upgradeAtMs ","
///                    upgradeProductID "," upgradePeriodMs "," downgradeAtMs "," downgradeProductID ","
///                    downgradePeriodMs ["," payUpFrontIntroPeriodMs "," refundPercentage ","
///                    refundReversedAtMs]
///
/// The bracketed fields came later. They are written only when they differ from the default
/// (storefront `USA`; any of the three subscription fields set; the app named or the token not
/// the derived one), so every account that could be written before they existed keeps its exact
/// text and receipt; and they are accepted only then, so each account still has a single
/// spelling. With the app fields, the storefront is written whatever it is; `appAccountToken` is
/// empty for the derived token and `~` for none.
///
/// Integers are canonical decimal, nil is `~`, strings (environment and ownership as their raw
/// values) are percent-encoded: every byte outside `[A-Za-z0-9._-]` as `%XX`, so a value never
/// contains a separator or a newline. The checksum (FNV-1a 64 of everything before `#`, 16 lowercase
/// hex digits) makes any tampering a rejection instead of a silently different account, the way
/// Apple rejects a receipt whose signature no longer matches. Parsing is strict: exactly one
/// spelling per account is accepted, anything else is nil.
enum SimulatedAccountText {
    private static let field = UInt8(ascii: ",")
    private static let record = UInt8(ascii: ";")
    private static let checksumMark = UInt8(ascii: "#")
    private static let none = UInt8(ascii: "~")
    private static let percent = UInt8(ascii: "%")
    private static let checksumDigits = 16
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Appends the text of `subscriber` to `output`.
    static func write(_ s: SimulatedSubscriber, to output: inout [UInt8]) {
        let start = output.count
        output.appendDecimal(s.id)
        output.append(field)
        appendString(s.environment.rawValue, to: &output)
        output.append(field)
        appendString(s.ownership.rawValue, to: &output)
        output.append(field)
        output.appendDecimal(s.receiptCreatedMs)
        output.append(field)
        appendOptional(s.fixedStatus.map(Int64.init), to: &output)
        output.append(field)
        output.appendDecimal(Int64(s.paddingBytes))
        output.append(field)
        output.appendDecimal(Int64(s.revision))
        let writesApp = s.bundleID != nil || s.appAccountTokenChoice != .derived
        if s.storefront != .usa || writesApp {
            output.append(field)
            appendString(s.storefront.rawValue, to: &output)
        }
        if writesApp {
            output.append(field)
            appendOptional(s.bundleID, to: &output)
            output.append(field)
            switch s.appAccountTokenChoice {
            case .derived: break
            case .absent: output.append(none)
            case .chosen(let token): appendString(token, to: &output)
            }
        }
        for subscription in s.subscriptions {
            output.append(record)
            write(subscription, to: &output)
        }
        let checksum = output.withUnsafeBufferPointer { fnv1a(UnsafeBufferPointer(rebasing: $0[start...])) }
        output.append(checksumMark)
        for shift in stride(from: 60, through: 0, by: -4) {
            output.append(hexDigits[Int(checksum >> UInt64(shift) & 0xF)])
        }
    }

    /// The account in `text`, or nil unless `text` is exactly what `write` produces for some account.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> SimulatedSubscriber? {
        let bodyCount = text.count - 1 - checksumDigits
        guard bodyCount > 0, text[bodyCount] == checksumMark else { return nil }
        let body = UnsafeBufferPointer(rebasing: text[..<bodyCount])
        var checksum: UInt64 = 0
        for digit in text[(bodyCount + 1)...] {
            guard let value = hexDigits.firstIndex(of: digit) else { return nil }
            checksum = checksum << 4 | UInt64(value)
        }
        guard checksum == fnv1a(body) else { return nil }
        return try? account(body)
    }

    private static func write(_ s: SimulatedSubscription, to output: inout [UInt8]) {
        appendString(s.productID, to: &output)
        output.append(field)
        output.appendDecimal(s.periodMs)
        output.append(field)
        output.appendDecimal(s.firstPurchaseMs)
        for value in [s.trialPeriodMs, s.cancelAtMs, s.billingFailureAtMs, s.graceDays.map(Int64.init),
                      s.recoverAtMs, s.refundAtMs, s.upgradeAtMs] {
            output.append(field)
            appendOptional(value, to: &output)
        }
        output.append(field)
        appendOptional(s.upgradeProductID, to: &output)
        output.append(field)
        appendOptional(s.upgradePeriodMs, to: &output)
        output.append(field)
        appendOptional(s.downgradeAtMs, to: &output)
        output.append(field)
        appendOptional(s.downgradeProductID, to: &output)
        output.append(field)
        appendOptional(s.downgradePeriodMs, to: &output)
        if s.payUpFrontIntroPeriodMs != nil || s.refundPercentage != nil || s.refundReversedAtMs != nil {
            output.append(field)
            appendOptional(s.payUpFrontIntroPeriodMs, to: &output)
            output.append(field)
            appendOptional(s.refundPercentage, to: &output)
            output.append(field)
            appendOptional(s.refundReversedAtMs, to: &output)
        }
    }

    private static func appendOptional(_ value: Int64?, to output: inout [UInt8]) {
        if let value { output.appendDecimal(value) } else { output.append(none) }
    }

    private static func appendOptional(_ value: String?, to output: inout [UInt8]) {
        if let value { appendString(value, to: &output) } else { output.append(none) }
    }

    private static func appendString(_ value: String, to output: inout [UInt8]) {
        for byte in value.utf8 {
            if isPlain(byte) {
                output.append(byte)
            } else {
                output.append(percent)
                output.append(upperHexDigits[Int(byte >> 4)])
                output.append(upperHexDigits[Int(byte & 0xF)])
            }
        }
    }

    /// Bytes written as themselves; every other byte is percent-encoded.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private struct Malformed: Error {}
    private typealias Token = Slice<UnsafeBufferPointer<UInt8>>

    private static func account(_ body: UnsafeBufferPointer<UInt8>) throws(Malformed) -> SimulatedSubscriber {
        let records = body.split(separator: record, omittingEmptySubsequences: false)
        let f = try fields(records[0], counts: 7...10)
        guard f.count != 9,
              let environment = SimulatedEnvironment(rawValue: try string(f[1])),
              let ownership = SimulatedOwnership(rawValue: try string(f[2]))
        else { throw Malformed() }
        let id = try int64(f[0])
        var storefront = SimulatedStorefront.usa
        if f.count >= 8 {
            guard let written = SimulatedStorefront(rawValue: try string(f[7])) else { throw Malformed() }
            storefront = written
        }
        var bundleID: String?
        var tokenChoice = SimulatedAppAccountTokenChoice.derived
        if f.count == 10 {
            bundleID = try optional(f[8], string)
            tokenChoice = try appAccountToken(f[9], subscriberID: id)
            // Written only when not the defaults.
            guard bundleID != nil || tokenChoice != .derived else { throw Malformed() }
        } else if f.count == 8 {
            // Written alone only when not the default.
            guard storefront != .usa else { throw Malformed() }
        }
        var subscriptions: [SimulatedSubscription] = []
        subscriptions.reserveCapacity(records.count - 1)
        for record in records.dropFirst() {
            subscriptions.append(try subscription(record))
        }
        var subscriber = SimulatedSubscriber(
            id: id, environment: environment, ownership: ownership, storefront: storefront,
            receiptCreatedMs: try int64(f[3]),
            subscriptions: subscriptions, fixedStatus: try optional(f[4], int), paddingBytes: try int(f[5]),
            revision: try int(f[6]), bundleID: bundleID)
        subscriber.appAccountTokenChoice = tokenChoice
        return subscriber
    }

    /// The token field: empty for the derived token, `~` for none, else the token, which must be
    /// what the setter keeps (lowercase, not the derived one).
    private static func appAccountToken(_ token: Token, subscriberID: Int64) throws(Malformed) -> SimulatedAppAccountTokenChoice {
        if token.isEmpty { return .derived }
        guard let written = try optional(token, string) else { return .absent }
        guard written == written.lowercased(),
              SimulatedAppAccountTokenChoice(written, subscriberID: subscriberID) == .chosen(written)
        else { throw Malformed() }
        return .chosen(written)
    }

    private static func subscription(_ record: Token) throws(Malformed) -> SimulatedSubscription {
        let f = try fields(record, counts: 15...18)
        guard f.count == 15 || f.count == 18 else { throw Malformed() }
        var introMs: Int64?, refundPercentage: Int64?, refundReversedAtMs: Int64?
        if f.count == 18 {
            introMs = try optional(f[15], int64)
            refundPercentage = try optional(f[16], int64)
            refundReversedAtMs = try optional(f[17], int64)
            // Written only when one of them is set.
            guard introMs != nil || refundPercentage != nil || refundReversedAtMs != nil else { throw Malformed() }
        }
        return SimulatedSubscription(
            productID: try string(f[0]), periodMs: try int64(f[1]), firstPurchaseMs: try int64(f[2]),
            trialPeriodMs: try optional(f[3], int64), payUpFrontIntroPeriodMs: introMs, cancelAtMs: try optional(f[4], int64),
            billingFailureAtMs: try optional(f[5], int64), graceDays: try optional(f[6], int),
            recoverAtMs: try optional(f[7], int64), refundAtMs: try optional(f[8], int64),
            refundPercentage: refundPercentage, refundReversedAtMs: refundReversedAtMs,
            upgradeAtMs: try optional(f[9], int64), upgradeProductID: try optional(f[10], string),
            upgradePeriodMs: try optional(f[11], int64), downgradeAtMs: try optional(f[12], int64),
            downgradeProductID: try optional(f[13], string), downgradePeriodMs: try optional(f[14], int64))
    }

    /// The `,`-separated fields of a record; a number of them within `counts`.
    private static func fields(_ record: Token, counts: ClosedRange<Int>) throws(Malformed) -> [Token] {
        let fields = record.split(separator: field, maxSplits: counts.upperBound, omittingEmptySubsequences: false)
        guard counts.contains(fields.count) else { throw Malformed() }
        return fields
    }

    /// nil when the field is `~`.
    private static func optional<T>(_ token: Token, _ read: (Token) throws(Malformed) -> T) throws(Malformed) -> T? {
        token.elementsEqual(CollectionOfOne(none)) ? nil : try read(token)
    }

    private static func int(_ token: Token) throws(Malformed) -> Int {
        guard let value = Int(exactly: try int64(token)) else { throw Malformed() }
        return value
    }

    /// Canonical decimal only: no `+`, no leading zeros, no `-0`.
    private static func int64(_ token: Token) throws(Malformed) -> Int64 {
        let negative = token.first == UInt8(ascii: "-")
        let magnitude = token.dropFirst(negative ? 1 : 0)
        guard let first = magnitude.first, first != UInt8(ascii: "0") || (magnitude.count == 1 && !negative)
        else { throw Malformed() }
        // Accumulated negatively so Int64.min fits.
        var value: Int64 = 0
        for byte in magnitude {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw Malformed() }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw Malformed() }
            value = next
        }
        if negative { return value }
        guard value != .min else { throw Malformed() }
        return -value
    }

    /// Percent-decodes a field; `%XX` is accepted only for bytes `write` encodes that way.
    private static func string(_ token: Token) throws(Malformed) -> String {
        let raw = UnsafeBufferPointer(rebasing: token)
        guard raw.contains(percent) else {
            guard raw.allSatisfy(isPlain) else { throw Malformed() }
            return String(decoding: raw, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var position = 0
        while position < raw.count {
            let byte = raw[position]
            if byte != percent {
                guard isPlain(byte) else { throw Malformed() }
                decoded.append(byte)
                position += 1
                continue
            }
            guard position + 2 < raw.count,
                  let high = upperHexDigits.firstIndex(of: raw[position + 1]),
                  let low = upperHexDigits.firstIndex(of: raw[position + 2])
            else { throw Malformed() }
            let escaped = UInt8(high << 4 | low)
            guard !isPlain(escaped) else { throw Malformed() }
            decoded.append(escaped)
            position += 3
        }
        guard let string = String(validating: decoded, as: UTF8.self) else { throw Malformed() }
        return string
    }
}
