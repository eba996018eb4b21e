import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The single-pass decoder against the Foundation JSONDecoder one it replaced
/// (`FoundationAnswerDecoder`): the same values for every body Foundation could read, and the
/// documented cases where Foundation was wrong. (VerifyReceiptResponseTests and FuzzTests compare
/// the two on each of their bodies as well.)
@Suite("Single-pass decoder vs Foundation's JSONDecoder")
struct DecoderEquivalenceTests {
    static let fixtureFolder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/apple-real")
    static let fixtures: [(name: String, bytes: [UInt8])] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtureFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            (name, Array((try? Data(contentsOf: fixtureFolder.appendingPathComponent(name))) ?? Data()))
        }
    }()

    private func body(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// A body with one `latest_receipt_info` entry made of `members` (raw JSON).
    private func entryBody(_ members: String) -> [UInt8] {
        body(#"{"status":0,"latest_receipt_info":[{\#(members)}]}"#)
    }

    @Test("every real Apple body decodes to the same value as with Foundation")
    func realFixtures() throws {
        #expect(Self.fixtures.count == 10)
        for fixture in Self.fixtures {
            let new = try VerifyReceiptResponse.decode(fixture.bytes)
            let old = try FoundationAnswerDecoder.decode(fixture.bytes)
            #expect(new == old, "\(fixture.name)")
            // Not vacuous: the bodies that hold transactions did yield them.
            #expect(new.transactions.isEmpty == fixture.name.hasPrefix("15-"), "\(fixture.name)")
        }
    }

    @Test("a truncated body is rejected at every length, never half-read")
    func everyTruncationIsRejected() throws {
        for fixture in Self.fixtures {
            let bytes = fixture.bytes
            // What may end a body after its closing brace: whitespace only.
            let end = try #require(bytes.lastIndex(of: UInt8(ascii: "}")), "\(fixture.name)")
            // ~300 cuts spread over the body, every cut in its last 64 bytes, and every cut of the
            // small bodies (all of them takes a minute in a debug build).
            let step = bytes.count < 2_500 ? 1 : bytes.count / 300
            let lengths = Set(Array(stride(from: 0, to: bytes.count, by: step)) + Array(max(0, bytes.count - 64)..<bytes.count))
            var accepted = 0
            for length in lengths {
                let prefix = Array(bytes[..<length])
                if (try? VerifyReceiptResponse.decode(prefix)) != nil {
                    accepted += 1
                    #expect(length > end, "\(fixture.name) cut to \(length) of \(bytes.count) bytes was read")
                }
            }
            // Not vacuous: the cuts that only drop trailing whitespace were read.
            #expect(accepted == bytes.count - end - 1, "\(fixture.name)")
        }
    }

    @Test("duplicate keys: the first one counts, at every level, as with Foundation")
    func duplicateKeysFirstWins() throws {
        let bytes = body(
            #"""
            {"status":21006,"status":0,"environment":"Sandbox","environment":"Production",
             "receipt":{"bundle_id":"first","bundle_id":"second","request_date_ms":"1","request_date_ms":"2"},
             "receipt":{"bundle_id":"third"},
             "latest_receipt_info":[{"transaction_id":"1","transaction_id":"2","expires_date_ms":"5","expires_date_ms":null}],
             "latest_receipt_info":[{"transaction_id":"3"},{"transaction_id":"4"}],
             "pending_renewal_info":null,"pending_renewal_info":[{"auto_renew_status":"1"}],
             "is_retryable":null,"is_retryable":true}
            """#)
        let response = try VerifyReceiptResponse.decode(bytes)
        #expect(response.rawStatus == 21006)
        #expect(response.rawEnvironment == "Sandbox")
        #expect(response.bundleID == "first")
        #expect(response.requestDateMs == 1)
        #expect(response.transactions.map(\.transactionID) == ["1"])
        #expect(response.transactions.first?.expiresDateMs == 5)
        #expect(response.pendingRenewals.isEmpty)
        #expect(response.isRetryable == nil)
        #expect(DecoderEquivalence.compare(bytes) == .same)
    }

    @Test("string escapes are resolved in values and in keys")
    func escapes() throws {
        let bytes = body(
            #"""
            {"st\u0061tus":0,"latest_receipt_info":[{"product_id":"q\"b\\s\/n\bf\fn\nr\rt\t\u00e9\u20AC\ud83e\uddfe\u0000.",
              "transaction_\u0069d":"\u0031\u0032","expires_date_ms":"\u0031\u0035"}],
             "environment":"Sandbox\u0020","latest_receipt":"é€🧾"}
            """#)
        let response = try VerifyReceiptResponse.decode(bytes)
        let entry = try #require(response.transactions.first)
        #expect(entry.productID == "q\"b\\s/n\u{8}f\u{C}n\nr\rt\té€🧾\u{0}.")
        #expect(entry.transactionID == "12")
        #expect(entry.expiresDateMs == 15)
        #expect(response.rawEnvironment == "Sandbox ")
        #expect(response.latestReceipt == "é€🧾")
        #expect(DecoderEquivalence.compare(bytes) == .same)
    }

    @Test("numbers read as Foundation read them", arguments: [
        "0", "-0", "7", "-7", "1591723711000", "9007199254740993", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "99999999999999999999", "1.0", "-0.0", "1e3", "1E+3", "1.8e12",
        "15e-1", "1.5", "0.5e1", "1e-400", "1.00000000000000000001", "4503599627370497.5", "1e400", "-1e400", "2e15",
    ])
    func numbers(number: String) {
        // As an id (text), a millisecond value, a flag, the expiration intent and the status.
        for members in [
            #""transaction_id":\#(number)"#, #""expires_date_ms":\#(number)"#, #""is_upgraded":\#(number)"#,
        ] {
            #expect(DecoderEquivalence.compare(entryBody(members)) == .same, "\(members)")
        }
        let renewal = body(#"{"status":0,"pending_renewal_info":[{"expiration_intent":\#(number),"auto_renew_status":\#(number)}]}"#)
        #expect(DecoderEquivalence.compare(renewal) == .same)
        // A status that is not a whole number is no answer, to both.
        let status = DecoderEquivalence.compare(body(#"{"status":\#(number)}"#))
        #expect(status == .same || status == .bothRejected)
    }

    @Test("flags in any case and JSON type, as Foundation read them", arguments: [
        #""true""#, #""TRUE""#, #""True""#, #""false""#, #""FaLsE""#, #""1""#, #""0""#, "true", "false", "1", "0", "2",
        #""yes""#, #""t""#, #"" true""#, #""1 ""#, #""tru\u0065""#, "null", #""""#, "[]", "{}",
    ])
    func flags(value: String) {
        let bytes = entryBody(#""is_upgraded":\#(value),"is_trial_period":\#(value),"is_in_intro_offer_period":\#(value)"#)
        #expect(DecoderEquivalence.compare(bytes) == .same)
    }

    @Test("whitespace, a byte order mark and empty containers are read as Foundation read them", arguments: [
        " \t\r\n{ \"status\" : 0 , \"latest_receipt_info\" : [ ] , \"receipt\" : { } } \r\n\t ",
        "\u{FEFF}{\"status\":0}",
        #"{"status":0,"latest_receipt_info":[{}],"pending_renewal_info":{}}"#,
        #"{"status":0,"latest_receipt_info":{},"receipt":[]}"#,
        #"{"status":0,"in_app":[[],{},[{}],{"a":[]}],"x":{"y":{"z":[1,"2",true,false,null,-0.5e-3]}}}"#,
    ])
    func layout(json: String) {
        #expect(DecoderEquivalence.compare(body(json)) == .same)
    }

    @Test("nesting: 512 levels are read, 513 are not, wherever they are, as with Foundation")
    func depthLimit() throws {
        for (levels, accepted) in [(512, true), (513, false)] {
            // The top-level object is one level; the rest is an unused value.
            let arrays = String(repeating: "[", count: levels - 1) + String(repeating: "]", count: levels - 1)
            let objects = String(repeating: #"{"a":"#, count: levels - 1) + "1" + String(repeating: "}", count: levels - 1)
            // Inside latest_receipt_info: two levels (the array and an entry) are used.
            let inEntry = String(repeating: "[", count: levels - 3) + String(repeating: "]", count: levels - 3)
            for json in [
                #"{"status":0,"in_app":\#(arrays)}"#, #"{"status":0,"unused":\#(objects)}"#,
                #"{"status":0,"latest_receipt_info":[{"transaction_id":\#(inEntry)}]}"#,
            ] {
                let bytes = body(json)
                #expect(((try? VerifyReceiptResponse.decode(bytes)) != nil) == accepted, "\(levels) levels")
                #expect(DecoderEquivalence.compare(bytes) == (accepted ? .same : .bothRejected), "\(levels) levels")
            }
        }
    }

    /// Foundation's JSONDecoder validates a string or a number only when a field asks for its
    /// value, and takes trailing commas. So it read these bodies, which are not well-formed JSON:
    /// unread values passed unchecked, and a read value it could not convert counted as absent
    /// (a garbled `expires_date_ms` silently became "no expiry"). Such a body is corrupt, not a
    /// variant Apple sends; the new decoder rejects it as notJSON, and the worker retries it.
    @Test("bodies Foundation read although they are malformed JSON are rejected", arguments: [
        (#""product_id":"p","x":1,"#, "trailing comma in an object"),
        (#""product_id":"p","in_app":[1,2,]"#, "trailing comma in an array"),
        (#""expires_date_ms":01"#, "a leading zero"),
        (#""expires_date_ms":1."#, "a fraction without digits"),
        (#""expires_date_ms":1e"#, "an exponent without digits"),
        (#""expires_date_ms":-"#, "a lone minus"),
        (#""unused":-01.e"#, "a garbled unused number"),
        (#""product_id":"a\x""#, "an unknown escape"),
        (#""unused":"\u12G4""#, "a bad \\u escape in an unused value"),
        (#""product_id":"\uD800""#, "a lone high surrogate"),
        (#""product_id":"\uDC00\uD800""#, "surrogates in the wrong order"),
        (#""unused":"\uD83Ex""#, "a high surrogate followed by a character"),
    ])
    func foundationAcceptedMalformedJSON(members: String, what: String) throws {
        let bytes = entryBody(members)
        #expect((try? FoundationAnswerDecoder.decode(bytes)) != nil, "Foundation read it (\(what))")
        #expect(throws: AppStoreAnswerError.notJSON(byteCount: bytes.count), "\(what)") { try VerifyReceiptResponse.decode(bytes) }
        #expect(DecoderEquivalence.compare(bytes) == .foundationAcceptedMalformedJSON, "\(what)")
    }

    @Test("ill-formed UTF-8 and raw control characters in strings are rejected, used or not", arguments: [
        [0xC3, 0x28], [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82], [0x00],
        [0x1F], [0x0A],
    ] as [[UInt8]])
    func badStringBytes(bad: [UInt8]) {
        for key in ["product_id", "unused"] {
            let bytes = body(#"{"status":0,"latest_receipt_info":[{"\#(key)":"a"#) + bad + body(#"b"}]}"#)
            #expect(throws: AppStoreAnswerError.notJSON(byteCount: bytes.count)) { try VerifyReceiptResponse.decode(bytes) }
            // Foundation read such a body too (the field then counted as absent).
            #expect(DecoderEquivalence.compare(bytes) == .foundationAcceptedMalformedJSON, "\(bad) in \(key)")
        }
    }

    @Test("well-formed multi-byte UTF-8 at the edges of its ranges is read", arguments: [
        "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "é🧾€",
    ])
    func wellFormedUTF8(text: String) throws {
        let bytes = entryBody(#""product_id":"\#(text)""#)
        #expect(try VerifyReceiptResponse.decode(bytes).transactions.first?.productID == text)
        #expect(DecoderEquivalence.compare(bytes) == .same)
    }

    /// A fraction or exponent at or above 2^53 (where a Double no longer holds every whole number)
    /// was read by Foundation through Decimal, dropping any fraction: `9007199254740993.5` became
    /// the id 9007199254740993. The new decoder doesn't guess: such a number is no value. No Apple
    /// field is a number like that (ids are strings, dates are plain integers).
    @Test("a fraction or exponent beyond 2^53 is no value", arguments: [
        ("9007199254740993.0", "9007199254740993"), ("9007199254740993.5", "9007199254740993"), ("1e18", "1000000000000000000"),
    ])
    func largeDecimals(number: String, foundationRead: String) throws {
        let bytes = entryBody(#""transaction_id":\#(number)"#)
        #expect(try FoundationAnswerDecoder.decode(bytes).transactions.first?.transactionID == foundationRead)
        #expect(try VerifyReceiptResponse.decode(bytes).transactions.first?.transactionID == nil)
    }
}
