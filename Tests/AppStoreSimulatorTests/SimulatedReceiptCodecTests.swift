import AppStoreSimulator
import Foundation
import Testing

/// The receipt's hand-written account codec: every field round-trips, the output is stable, and
/// anything that is not exactly an encoded account decodes to nil (Apple status 21002).
@Suite struct SimulatedReceiptCodecTests {
    static let marker = "SUBRECON-SIMULATED-RECEIPT/2\n"

    /// A subscription with every optional set, to distinct values.
    static let everything = SimulatedSubscription(
        productID: "com.example.pro.monthly", periodMs: 2_592_000_000, firstPurchaseMs: 1_700_000_000_000,
        trialPeriodMs: 604_800_000, cancelAtMs: 1_700_000_000_001, billingFailureAtMs: 1_700_000_000_002, graceDays: 16,
        recoverAtMs: 1_700_000_000_003, refundAtMs: 1_700_000_000_004, upgradeAtMs: 1_700_000_000_005,
        upgradeProductID: "com.example.premium.monthly", upgradePeriodMs: 1_700_000_000_006,
        downgradeAtMs: 1_700_000_000_007, downgradeProductID: "com.example.pro.yearly", downgradePeriodMs: 1_700_000_000_008)

    static let roundTripCases: [(String, SimulatedSubscriber)] = [
        ("no subscriptions, no padding", SimulatedSubscriber(id: 1, subscriptions: [])),
        ("every optional set", SimulatedSubscriber(
            id: 42, environment: .sandbox, ownership: .familyShared, receiptCreatedMs: 5,
            subscriptions: [everything], fixedStatus: 21003, paddingBytes: 3_000, revision: 12)),
        ("every optional nil", SimulatedSubscriber(
            id: 43, subscriptions: [SimulatedSubscription(productID: "p", periodMs: 1, firstPurchaseMs: 0)])),
        ("several subscriptions", SimulatedSubscriber(
            id: 44, subscriptions: [
                everything,
                SimulatedSubscription(productID: "com.example.news.monthly", periodMs: 10, firstPurchaseMs: 11),
                SimulatedSubscription(productID: "x", periodMs: 3, firstPurchaseMs: 4, graceDays: 0, upgradeProductID: ""),
            ], paddingBytes: 7)),
        ("fixed status 0 and negative status", SimulatedSubscriber(
            id: 45, subscriptions: [], fixedStatus: 0, paddingBytes: 1, revision: -1)),
        ("extreme integers", SimulatedSubscriber(
            id: .max, environment: .sandbox, receiptCreatedMs: .min,
            subscriptions: [SimulatedSubscription(
                productID: "edge", periodMs: .max, firstPurchaseMs: .min, trialPeriodMs: 0, cancelAtMs: -1,
                graceDays: .min, recoverAtMs: .max, downgradePeriodMs: -9_223_372_036_854_775_807)],
            fixedStatus: .max, paddingBytes: 2, revision: .max)),
        ("negative id and padding", SimulatedSubscriber(
            id: .min, subscriptions: [SimulatedSubscription(productID: "n", periodMs: -5, firstPurchaseMs: -6)],
            fixedStatus: .min, paddingBytes: -3_000, revision: .min)),
        ("large padding", SimulatedSubscriber(
            id: 10_000_000_000, subscriptions: [everything], paddingBytes: 100_003)),
        ("product ids needing escapes", SimulatedSubscriber(
            id: 46, subscriptions: [SimulatedSubscription(
                productID: "a,b;c#d~e%f\ng h\"\\/é😀", periodMs: 1, firstPurchaseMs: 2,
                upgradeProductID: "~", downgradeProductID: "%41")],
            paddingBytes: 5)),
    ]

    @Test(arguments: roundTripCases)
    func roundTripsEveryField(_ name: String, _ subscriber: SimulatedSubscriber) throws {
        let encoded = SimulatedReceipt.encode(subscriber)
        #expect(Data(base64Encoded: encoded) != nil, "\(name): not standard base64")
        let decoded = try #require(SimulatedReceipt.decode(encoded), "\(name)")
        #expect(decoded == subscriber, "\(name)")
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 3_000, 3_001, 3_002])
    func fillerHasTheRequestedSize(paddingBytes: Int) throws {
        let subscriber = SimulatedSubscriber(id: 9, subscriptions: [Self.everything], paddingBytes: paddingBytes)
        let raw = try #require(Data(base64Encoded: SimulatedReceipt.encode(subscriber)))
        let textEnd = try #require(raw.firstIndex(of: UInt8(ascii: "\n"), after: Self.marker.utf8.count))
        #expect(raw.count - (textEnd + 1) == paddingBytes)
        #expect(raw.starts(with: Data(Self.marker.utf8)))
    }

    @Test func equalSubscribersGiveEqualStrings() {
        func make() -> SimulatedSubscriber {
            SimulatedSubscriber(id: 77, subscriptions: [Self.everything], fixedStatus: 21010, paddingBytes: 300)
        }
        #expect(SimulatedReceipt.encode(make()) == SimulatedReceipt.encode(make()))
        var bumped = make()
        bumped.revision += 1
        #expect(SimulatedReceipt.encode(bumped) != SimulatedReceipt.encode(make()))
    }

    /// Pins the format: stored receipts (databases, fixtures) keep decoding to the same account.
    @Test func formatIsStable() throws {
        let subscriber = SimulatedSubscriber(
            id: 5, receiptCreatedMs: 1_000,
            subscriptions: [SimulatedSubscription(productID: "p.m", periodMs: 60_000, firstPurchaseMs: 1_000, graceDays: 3)],
            paddingBytes: 4)
        let text = try #require(Self.text(of: SimulatedReceipt.encode(subscriber)))
        #expect(text == "5,Production,PURCHASED,1000,~,4,0;p.m,60000,1000,~,~,~,3,~,~,~,~,~,~,~,~#"
            + Self.checksum("5,Production,PURCHASED,1000,~,4,0;p.m,60000,1000,~,~,~,3,~,~,~,~,~,~,~,~"))
        #expect(SimulatedReceipt.encode(subscriber) == "U1VCUkVDT04tU0lNVUxBVEVELVJFQ0VJUFQvMgo1LFByb2R1Y3Rpb24sUFVSQ0hBU0VELDEwMDAsfiw0LDA7cC5tLDYwMDAwLDEwMDAsfix+LH4sMyx+LH4sfix+LH4sfix+LH4jNjcwODk2MWU5MDIyYmM4NQpaw4mj")
    }

    @Test func rejectsBrokenBase64() {
        let encoded = SimulatedReceipt.encode(SimulatedScenario.active.subscriber(id: 1, nowMs: 1_716_192_930_417))
        #expect(SimulatedReceipt.decode(encoded) != nil)
        let middle = encoded.index(encoded.startIndex, offsetBy: encoded.count / 2)
        var withBadCharacter = encoded
        withBadCharacter.replaceSubrange(middle...middle, with: "!")
        var withInnerPadding = encoded
        withInnerPadding.replaceSubrange(middle...middle, with: "=")
        var withWhitespace = encoded
        withWhitespace.insert(contentsOf: "\n", at: middle)
        let cases = [
            "", "====", "not base64 at all!", withBadCharacter, withInnerPadding, withWhitespace,
            String(encoded.dropLast()), String(encoded.dropLast(4)), String(encoded.dropFirst(4)), encoded + "AAAA",
        ]
        for (index, receipt) in cases.enumerated() {
            #expect(SimulatedReceipt.decode(receipt) == nil, "case \(index)")
        }
    }

    @Test func rejectsNonCanonicalPaddingBits() throws {
        // A filler size whose receipt ends in "x==": only the top 2 bits of x's 6 carry data.
        let encoded = try #require((0..<3).lazy
            .map { SimulatedReceipt.encode(SimulatedSubscriber(id: 3, subscriptions: [], paddingBytes: $0)) }
            .first { $0.hasSuffix("==") })
        #expect(SimulatedReceipt.decode(encoded) != nil)
        // Setting a bit the padding drops keeps the decoded bytes, but is not what an encoder writes.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var altered = Array(encoded.utf8)
        let last = altered.count - 3
        altered[last] = alphabet[try #require(alphabet.firstIndex(of: altered[last])) | 1]
        #expect(Data(base64Encoded: String(decoding: altered, as: UTF8.self)) != nil, "Foundation is lenient here")
        #expect(SimulatedReceipt.decode(String(decoding: altered, as: UTF8.self)) == nil)
    }

    @Test func rejectsWrongMarkerAndTruncation() throws {
        let subscriber = SimulatedSubscriber(id: 8, subscriptions: [Self.everything], paddingBytes: 40)
        let raw = try #require(Data(base64Encoded: SimulatedReceipt.encode(subscriber)))
        var oldMarker = raw
        oldMarker.replaceSubrange(0..<Self.marker.utf8.count, with: Data("SUBRECON-SIMULATED-RECEIPT/1\n".utf8))
        let textEnd = try #require(raw.firstIndex(of: UInt8(ascii: "\n"), after: Self.marker.utf8.count))
        let cases: [Data] = [
            oldMarker,
            Data("SUBRECON-SIMULATED-RECEIPT/1\n{broken\n".utf8),
            Data("MIIUUQYJKoZIhvcNAQcCoIIUQjCC".utf8),
            raw.prefix(Self.marker.utf8.count),
            raw.prefix(textEnd),  // no newline after the text
            raw.prefix(textEnd + 1 + 39),  // one filler byte short
            raw + Data([0]),  // one filler byte too many
        ]
        for (index, data) in cases.enumerated() {
            #expect(SimulatedReceipt.decode(data.base64EncodedString()) == nil, "case \(index)")
        }
    }

    @Test func rejectsTamperedText() throws {
        let subscriber = SimulatedSubscriber(id: 123, subscriptions: [Self.everything], paddingBytes: 10)
        let text = try #require(Self.text(of: SimulatedReceipt.encode(subscriber)))
        let body = String(text.prefix(while: { $0 != "#" }))
        // The helpers rebuild exactly what the encoder writes.
        #expect(SimulatedReceipt.decode(Self.receipt(body: body, paddingBytes: 10)) == subscriber)
        // Any edit without the matching checksum.
        let unsigned = body.replacingOccurrences(of: "123,", with: "124,")
        #expect(SimulatedReceipt.decode(Self.receipt(text: unsigned + "#" + Self.checksum(body), paddingBytes: 10)) == nil)
        #expect(SimulatedReceipt.decode(Self.receipt(text: body + "#" + Self.checksum(body).uppercased(), paddingBytes: 10)) == nil)
        #expect(SimulatedReceipt.decode(Self.receipt(text: body, paddingBytes: 10)) == nil)
    }

    /// Edits re-signed with a valid checksum: the parser itself accepts only canonical text.
    @Test(arguments: [
        ("123,", "0123,"), ("123,", "+123,"), ("123,", "-0,"), ("123,", "9223372036854775808,"),
        ("123,", ","), ("123,", "1a,"), ("Production", "production"), ("PURCHASED", "Purchased"),
        ("com.example.pro.monthly", "com%2Eexample.pro.monthly"), ("com.example.pro.monthly", "com/example"),
        ("com.example.pro.monthly", "%ff"), ("com.example.pro.monthly", "%FF"), ("com.example.pro.monthly", "%4"),
        (",16,", ",~16,"), (",16,", ",16,,"), (",16,", ",16;"), (",10,12", ",11,12"),
    ])
    func rejectsNonCanonicalText(original: String, replacement: String) throws {
        let subscriber = SimulatedSubscriber(id: 123, subscriptions: [Self.everything], paddingBytes: 10, revision: 12)
        let text = try #require(Self.text(of: SimulatedReceipt.encode(subscriber)))
        let body = String(text.prefix(while: { $0 != "#" }))
        let tampered = body.replacingOccurrences(of: original, with: replacement)
        #expect(tampered != body, "the edit must apply")
        #expect(SimulatedReceipt.decode(Self.receipt(body: tampered, paddingBytes: 10)) == nil)
    }

    // MARK: - Helpers

    /// The account text inside a receipt.
    static func text(of receipt: String) -> String? {
        guard let raw = Data(base64Encoded: receipt), raw.starts(with: Data(marker.utf8)),
              let end = raw.firstIndex(of: UInt8(ascii: "\n"), after: marker.utf8.count)
        else { return nil }
        return String(decoding: raw[marker.utf8.count..<end], as: UTF8.self)
    }

    /// A receipt for account text `body`, signed like the encoder signs it.
    static func receipt(body: String, paddingBytes: Int) -> String {
        receipt(text: body + "#" + checksum(body), paddingBytes: paddingBytes)
    }

    static func receipt(text: String, paddingBytes: Int) -> String {
        var raw = Data((marker + text + "\n").utf8)
        raw.append(Data(repeating: 0xA5, count: paddingBytes))
        return raw.base64EncodedString()
    }

    /// FNV-1a 64 as 16 lowercase hex digits.
    static func checksum(_ body: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in body.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

private extension Data {
    func firstIndex(of byte: UInt8, after offset: Int) -> Int? {
        self[(startIndex + offset)...].firstIndex(of: byte).map { $0 - startIndex }
    }
}
