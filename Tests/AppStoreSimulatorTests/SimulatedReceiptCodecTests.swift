import AppStoreSimulator
import AppleSignedData
import Foundation
import SwiftASN1
import Testing

/// The receipt's hand-written account codec: every field round-trips, the output is stable, and
/// anything that is not exactly an encoded account decodes to nil (Apple status 21002).
@Suite struct SimulatedReceiptCodecTests {
    static let marker = "SUBRECON-SIMULATED-RECEIPT/3\n"

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
        ("money fields", SimulatedSubscriber(
            id: 47, ownership: .familyShared, storefront: .jpn, subscriptions: [
                SimulatedSubscription(
                    productID: "com.example.pro.monthly", periodMs: 10, firstPurchaseMs: 11, payUpFrontIntroPeriodMs: 30,
                    refundAtMs: 12, refundPercentage: 42_500, refundReversedAtMs: 13),
                SimulatedSubscription(productID: "a", periodMs: 1, firstPurchaseMs: 2, refundPercentage: 0),
                SimulatedSubscription(productID: "b", periodMs: 1, firstPurchaseMs: 2, refundReversedAtMs: -1),
                SimulatedSubscription(productID: "c", periodMs: 1, firstPurchaseMs: 2),
            ], paddingBytes: 9)),
        ("every storefront but the default", SimulatedSubscriber(id: 48, storefront: .gbr, subscriptions: [])),
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
        let attributes = try Self.attributes(of: SimulatedReceipt.encode(subscriber))
        #expect(attributes.map(\.type) == [2, 4, 17, 17, 10_000])
        #expect(attributes.last?.value.count == paddingBytes)
        #expect(attributes[1].value.starts(with: Self.marker.utf8))
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
        #expect(SimulatedReceipt.encode(subscriber) == Self.stableReceipt)
    }

    /// The money fields are written only when they differ from the default, so an account that
    /// has none keeps the text (and receipt) it had before they existed; with them, one spelling.
    @Test func moneyFieldsAreAppendedOnlyWhenSet() throws {
        let plain = SimulatedSubscription(productID: "p.m", periodMs: 60_000, firstPurchaseMs: 1_000)
        var withIntro = plain
        withIntro.payUpFrontIntroPeriodMs = 5
        let subscriber = SimulatedSubscriber(
            id: 5, storefront: .deu, receiptCreatedMs: 1_000, subscriptions: [withIntro, plain], paddingBytes: 4)
        let text = try #require(Self.text(of: SimulatedReceipt.encode(subscriber)))
        let body = "5,Production,PURCHASED,1000,~,4,0,DEU;p.m,60000,1000,~,~,~,~,~,~,~,~,~,~,~,~,5,~,~"
            + ";p.m,60000,1000,~,~,~,~,~,~,~,~,~,~,~,~"
        #expect(text == body + "#" + Self.checksum(body))
        #expect(SimulatedReceipt.decode(Self.receipt(body: body, paddingBytes: 4)) == subscriber)
        // The default written out, or three unset money fields: not what the encoder writes.
        for tampered in [
            body.replacingOccurrences(of: ",DEU;", with: ",USA;"),
            body.replacingOccurrences(of: ",DEU;", with: ",deu;"),
            body.replacingOccurrences(of: ",DEU;", with: ",;"),
            body.replacingOccurrences(of: ",5,~,~;", with: ",~,~,~;"),
            body.replacingOccurrences(of: ",5,~,~;", with: ",5,~;"),
            body.replacingOccurrences(of: ",5,~,~;", with: ",5,~,~,~;"),
        ] {
            #expect(tampered != body)
            #expect(SimulatedReceipt.decode(Self.receipt(body: tampered, paddingBytes: 4)) == nil, "\(tampered)")
        }
    }

    /// `formatIsStable`'s receipt (format 3), checked with `openssl asn1parse`.
    static let stableReceipt =
        "MIIB4wYJKoZIhvcNAQcCoIIB1DCCAdACAQExADCCAcUGCSqGSIb3DQEHAaCCAbYEggGyMYIBrjAeAgECAgEBBBYMFGNvbS5leGFtcGxlLnN1YnJlY29uMH4CAQQCAQEEdlNVQlJFQ09OLVNJTVVMQVRFRC1SRUNFSVBULzMKNSxQcm9kdWN0aW9uLFBVUkNIQVNFRCwxMDAwLH4sNCwwO3AubSw2MDAwMCwxMDAwLH4sfix+LDMsfix+LH4sfix+LH4sfix+IzY3MDg5NjFlOTAyMmJjODUwgZACARECAQEEgYcxgYQwDgICBqYCAQEEBQwDcC5tMB0CAganAgEBBBQMEjEwMDAwMDAwMDA1MDAwMDAwMDAdAgIGqQIBAQQUDBIxMDAwMDAwMDAwNTAwMDAwMDAwHwICBqwCAQEEFhYUMTk3MC0wMS0wMVQwMDowMTowMVowEwICBq8CAQEECgIIAsaK8L4O8IAwagIBEQIBAQRiMWAwIAICBqYCAQEEFwwVY29tLmV4YW1wbGUuY29pbnMuMTAwMB0CAganAgEBBBQMEjEwMDAwMDAwMDA1OTAwMDAwMDAdAgIGqQIBAQQUDBIxMDAwMDAwMDAwNTkwMDAwMDAwDQICJxACAQEEBFrDiaMxAA=="

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

    @Test func rejectsOtherFormatsAndTruncation() throws {
        let subscriber = SimulatedSubscriber(id: 8, subscriptions: [Self.everything], paddingBytes: 40)
        let encoded = SimulatedReceipt.encode(subscriber)
        let raw = try #require(Data(base64Encoded: encoded))
        let text = try #require(Self.text(of: encoded))
        // Format 2 (base64 of marker + account text + newline + filler), still checksummed right.
        let formatTwo = Data(("SUBRECON-SIMULATED-RECEIPT/2\n" + text + "\n").utf8) + Data(repeating: 0xA5, count: 40)
        var cases: [Data] = [
            formatTwo,
            Data(Self.receipt(text: text, paddingBytes: 40, marker: "SUBRECON-SIMULATED-RECEIPT/2\n").utf8),
            Data(Self.receipt(text: text, paddingBytes: 40, marker: "").utf8),
            Data("SUBRECON-SIMULATED-RECEIPT/3\n{broken\n".utf8),
            Data(AppReceiptWriter.receipt(bundleID: "b", purchases: [], extraAttributes: [])),
            Data(AppReceiptWriter.receipt(bundleID: "b", purchases: [], extraAttributes: [(type: 5, value: Array((Self.marker + text).utf8))])),
            raw + Data([0]),  // one byte more than the container says
        ]
        // Every truncation (the container's length no longer matches).
        for length in stride(from: 0, to: raw.count, by: 7) {
            cases.append(raw.prefix(length))
        }
        for (index, data) in cases.enumerated() {
            let receipt = index == 1 || index == 2 ? String(decoding: data, as: UTF8.self) : data.base64EncodedString()
            #expect(SimulatedReceipt.decode(receipt) == nil, "case \(index)")
        }
        #expect(SimulatedReceipt.decode(Self.receipt(text: text, paddingBytes: 40)) == subscriber)
    }

    @Test func rejectsTamperedText() throws {
        let subscriber = SimulatedSubscriber(id: 123, subscriptions: [Self.everything], paddingBytes: 10)
        let text = try #require(Self.text(of: SimulatedReceipt.encode(subscriber)))
        let body = String(text.prefix(while: { $0 != "#" }))
        // The helpers rebuild the account attribute as the encoder writes it.
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

    /// The account text inside a receipt (attribute 4, after the marker).
    static func text(of receipt: String) -> String? {
        guard let account = try? attributes(of: receipt).first(where: { $0.type == 4 })?.value,
              account.starts(with: marker.utf8)
        else { return nil }
        return String(decoding: account.dropFirst(marker.utf8.count), as: UTF8.self)
    }

    /// A receipt for account text `body`, signed like the encoder signs it.
    static func receipt(body: String, paddingBytes: Int) -> String {
        receipt(text: body + "#" + checksum(body), paddingBytes: paddingBytes)
    }

    /// A receipt like the encoder's, without in-app records, holding `marker + text` and a filler.
    static func receipt(text: String, paddingBytes: Int, marker: String = marker) -> String {
        let bytes = AppReceiptWriter.receipt(
            bundleID: SimulatedProducts.bundleID, purchases: [],
            extraAttributes: [(type: 4, value: Array((marker + text).utf8)),
                              (type: 10_000, value: [UInt8](repeating: 0xA5, count: paddingBytes))])
        return Data(bytes).base64EncodedString()
    }

    /// The payload attributes of a simulated receipt, read as strict DER.
    static func attributes(of receipt: String) throws -> [(type: Int, value: [UInt8])] {
        func children(_ node: ASN1Node) throws -> [ASN1Node] {
            guard case .constructed(let nodes) = node.content else { throw ASN1Error.invalidASN1Object(reason: "primitive") }
            return Array(nodes)
        }
        guard let raw = Data(base64Encoded: receipt) else { throw ASN1Error.invalidASN1Object(reason: "base64") }
        let contentInfo = try children(try DER.parse([UInt8](raw)))
        let signedData = try children(try children(contentInfo[1])[0])
        let encapsulated = try children(signedData[2])
        let octets = try ASN1OctetString(derEncoded: try children(encapsulated[1])[0])
        return try children(try DER.parse(octets.bytes)).map { attribute in
            let fields = try children(attribute)
            return (try Int(derEncoded: fields[0]), Array(try ASN1OctetString(derEncoded: fields[2]).bytes))
        }
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
