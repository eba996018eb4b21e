import Crypto
import Foundation
import SubReconTestSupport
import Testing

@testable import AppleSignedData

/// Base64URL, Base64, the strict JSON reader and ES256 against a published vector.
@Suite struct JWSEncodingTests {
    @Test func base64URLRoundTripsEveryLengthAndMatchesFoundation() {
        var generator = SplitMix64(seed: 7)
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            let foundation = Data(bytes).base64EncodedString()
            #expect(encoded == foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
            #expect(Base64URL.decode(encoded) == bytes)
            #expect(Base64.encode(bytes) == foundation)
            #expect(Base64.decode(foundation) == bytes)
        }
    }

    /// Every one-byte change of an encoded text: a text that decodes is the one canonical encoding
    /// of what it decodes to, and a change to another alphabet character before the last always decodes.
    @Test(arguments: [1, 2, 3, 4, 10, 31, 32, 33])
    func base64URLDecodesEveryOneByteChangeCanonicallyOrNotAtAll(length: Int) {
        var generator = SplitMix64(seed: UInt64(length))
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Array(Base64URL.encode(bytes).utf8)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var decoded = 0
        for position in text.indices {
            for value in UInt8.min...UInt8.max {
                var changed = text
                changed[position] = value
                if let result = Base64URL.decode(utf8: changed[...]) {
                    decoded += 1
                    #expect(Array(Base64URL.encode(result).utf8) == changed)
                } else {
                    #expect(!alphabet.contains(value) || position == text.count - 1)
                }
            }
        }
        #expect(decoded >= 64 * (text.count - 1))
    }

    @Test(arguments: ["AA==", "A", "AAAAA", "+w", "/w", "AA AA", " AA", "AA\n", "AB", "AAB", "é"])
    func base64URLRefusesNonCanonicalText(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test(arguments: ["AA", "AA=", "-w==", "_w==", "AB==", "AAB=", "A===", "AA==AA==", "=AAA", " AA=="])
    func standardBase64RefusesNonCanonicalText(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func strictJSONReadsWhatJWSHeadersContain() throws {
        let text = #" { "alg" : "ES256", "x5c": ["MII\/A+=="], "n": -12.5e3, "ok": true, "no": false, "z": null, "o": {} } "#
        let value = try StrictJSON.parse(Array(text.utf8))
        #expect(value == .object([
            "alg": .string("ES256"), "x5c": .array([.string("MII/A+==")]), "n": .number("-12.5e3"),
            "ok": .bool(true), "no": .bool(false), "z": .null, "o": .object([:]),
        ]))
    }

    @Test func strictJSONDecodesEscapes() throws {
        let text = #"["\"\\\/\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00", "é"]"#
        #expect(try StrictJSON.parse(Array(text.utf8)) == .array([
            .string("\"\\/\u{08}\u{0C}\n\r\t"), .string("é€"), .string("😀"), .string("é"),
        ]))
    }

    @Test(arguments: [
        "", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[01]", "[1.]", "[.5]", "[1e]", "[-]",
        "[+1]", "[\"\u{01}\"]", "[\"\\x\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\u12\"]", "{'a':1}", "[tru]",
        "[1] [2]", "{\"a\":1}}", "[\"abc", "NaN", "[Infinity]",
    ])
    func strictJSONRefusesMalformedText(text: String) {
        #expect(throws: JSONReadError.self) { try StrictJSON.parse(Array(text.utf8)) }
    }

    @Test func strictJSONRefusesInvalidUTF8() {
        #expect(throws: JSONReadError.self) { try StrictJSON.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONReadError.self) { try StrictJSON.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func strictJSONRefusesDuplicatesAtAnyDepth() {
        #expect(throws: JSONReadError.duplicateKey("a")) { try StrictJSON.parse(Array(#"{"a":1,"a":1}"#.utf8)) }
        #expect(throws: JSONReadError.duplicateKey("b")) { try StrictJSON.parse(Array(#"{"a":[{"b":1,"b":2}]}"#.utf8)) }
        // Escapes are decoded before comparing names.
        #expect(throws: JSONReadError.duplicateKey("alg")) { try StrictJSON.parse(Array(#"{"alg":1,"\u0061lg":2}"#.utf8)) }
    }

    @Test func strictJSONBoundsNesting() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONReadError.tooDeep) { try StrictJSON.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try StrictJSON.parse(Array(fine.utf8))
    }

    @Test func integerValuesAreExactInt64Only() {
        #expect(JSONValue.number("1748736000000").int64Value == 1_748_736_000_000)
        #expect(JSONValue.number("9223372036854775807").int64Value == Int64.max)
        #expect(JSONValue.number("9223372036854775808").int64Value == nil)
        #expect(JSONValue.number("1.0").int64Value == nil)
        #expect(JSONValue.number("1e3").int64Value == nil)
        #expect(JSONValue.string("1").int64Value == nil)
    }

    @Test func jsonTextQuotesControlCharacters() {
        #expect(JSONText.quoted("a\"b\\c\n\u{01}é") == #""a\"b\\c\n\u0001é""#)
    }

    /// RFC 7515 Appendix A.3: an ES256 JWS and the signer's public key (JWK x, y).
    @Test func es256VerifiesTheRFC7515Example() throws {
        let jws =
            "eyJhbGciOiJFUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
            + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let key = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let parts = jws.split(separator: ".")
        let signature = try #require(Base64URL.decode(parts[2]))
        let input = Array(parts[0...1].joined(separator: ".").utf8)
        #expect(ES256.isValid(signature: signature, for: input, by: key))
        #expect(!ES256.isValid(signature: signature, for: input + [0x20], by: key))
    }

    @Test func jwsSignerWritesAppleShapedHeaders() throws {
        let chain = try TestChains.standard.x5c()
        let signer = JWSSigner(privateKey: TestChains.standard.leafKey, certificateChain: chain)
        guard case .object(let header) = try StrictJSON.parse(signer.headerJSON) else {
            Issue.record("header is not an object")
            return
        }
        #expect(header["alg"] == .string("ES256"))
        #expect(header["x5c"] == .array(chain.map { .string(Data($0).base64EncodedString()) }))
    }
}
