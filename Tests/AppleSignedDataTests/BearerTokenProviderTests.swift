import Crypto
import Foundation
import Synchronization
import Testing

@testable import AppleSignedData

/// A clock tests can move.
final class TestClock: Sendable {
    private let milliseconds: Mutex<Int64>

    init(_ start: Int64) {
        milliseconds = Mutex(start)
    }

    func advance(seconds: Int64) {
        milliseconds.withLock { $0 += seconds * 1000 }
    }

    var now: @Sendable () -> Int64 {
        { self.milliseconds.withLock { $0 } }
    }
}

@Suite struct BearerTokenProviderTests {
    static let start: Int64 = 1_748_736_000_123  // 2025-06-01T00:00:00.123Z
    let key = AppStoreAPIKey(
        privateKey: P256.Signing.PrivateKey(),
        keyID: "2X9R4HXF34",
        issuerID: "57246542-96fe-1a63-e053-0824d011072a",
        bundleID: "com.example.App"
    )

    func decode(_ token: String) throws -> (header: String, claims: [String: JSONValue], signature: [UInt8]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = String(decoding: try #require(Base64URL.decode(parts[0])), as: UTF8.self)
        guard case .object(let claims) = try StrictJSON.parse(try #require(Base64URL.decode(parts[1]))) else {
            throw JSONReadError.malformed(offset: 0)
        }
        return (header, claims, try #require(Base64URL.decode(parts[2])))
    }

    @Test func headerAndClaimsAreExactlyWhatAppleAsksFor() throws {
        let provider = BearerTokenProvider(key: key, clock: { Self.start })
        let (header, claims, _) = try decode(try provider.token())
        #expect(header == #"{"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}"#)
        #expect(Set(claims.keys) == ["iss", "iat", "exp", "aud", "bid"])
        #expect(claims["iss"] == .string("57246542-96fe-1a63-e053-0824d011072a"))
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        #expect(claims["bid"] == .string("com.example.App"))
        let iat = try #require(claims["iat"]?.int64Value)
        let exp = try #require(claims["exp"]?.int64Value)
        #expect(iat == Self.start / 1000 - 60, "iat is in seconds, back-dated 60 s")
        #expect(exp - iat == 30 * 60)
        #expect(exp - iat <= 3600)
    }

    /// App Store Connect (sales reports): a team key's token names no app and lives 20 minutes at most.
    @Test func aTeamKeysTokenHasNoBundleIDAndAtMostTwentyMinutes() throws {
        let teamKey = AppStoreConnectKey(privateKey: P256.Signing.PrivateKey(), keyID: "TEAMKEY001", issuerID: "issuer-1")
        let provider = BearerTokenProvider(teamKey: teamKey, lifetimeSeconds: 3600, clock: { Self.start })
        let token = try provider.token()
        let (header, claims, signature) = try decode(token)
        #expect(header == #"{"alg":"ES256","kid":"TEAMKEY001","typ":"JWT"}"#)
        #expect(Set(claims.keys) == ["iss", "iat", "exp", "aud"])
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        let iat = try #require(claims["iat"]?.int64Value)
        let exp = try #require(claims["exp"]?.int64Value)
        #expect(exp - iat == 20 * 60, "asked for an hour, clamped to Apple's 20 minutes")
        let signingInput = Array(token.utf8.prefix(token.utf8.count - token.split(separator: ".").last!.utf8.count - 1))
        let parsed = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(teamKey.publicKey.isValidSignature(parsed, for: signingInput))
        #expect(try provider.token() == token, "reused until it nears its expiry")
        #expect(!"\(teamKey)".contains("BEGIN"), "printing the key never shows it")
    }

    @Test func theSignatureIsRawRSAndVerifiesWithTheKey() throws {
        let provider = BearerTokenProvider(key: key, clock: { Self.start })
        let token = try provider.token()
        let (_, _, signature) = try decode(token)
        #expect(signature.count == 64)
        let signingInput = Array(token.split(separator: ".")[0...1].joined(separator: ".").utf8)
        let raw = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(key.publicKey.isValidSignature(raw, for: signingInput))
    }

    @Test func aTokenIsReusedUntilTwoMinutesBeforeExpiry() throws {
        let clock = TestClock(Self.start)
        let provider = BearerTokenProvider(key: key, clock: clock.now)
        let first = try provider.token()
        clock.advance(seconds: 26 * 60)  // exp is 29 min from start: 3 min left
        #expect(try provider.token() == first)
        #expect(provider.signedTokenCount == 1)

        clock.advance(seconds: 2 * 60)  // 1 min left
        let second = try provider.token()
        #expect(second != first)
        #expect(provider.signedTokenCount == 2)
        let iat = try #require(try decode(second).claims["iat"]?.int64Value)
        #expect(iat == (Self.start / 1000) + 28 * 60 - 60)
        #expect(try provider.token() == second)
        #expect(provider.signedTokenCount == 2)
    }

    @Test func aClockThatJumpsBackBeforeIatGetsANewToken() throws {
        let clock = TestClock(Self.start)
        let provider = BearerTokenProvider(key: key, clock: clock.now)
        _ = try provider.token()
        clock.advance(seconds: -120)
        _ = try provider.token()
        #expect(provider.signedTokenCount == 2)
    }

    @Test func theLifetimeNeverExceedsSixtyMinutes() throws {
        let provider = BearerTokenProvider(key: key, lifetimeSeconds: 7200, clock: { Self.start })
        let claims = try decode(try provider.token()).claims
        #expect(try #require(claims["exp"]?.int64Value) - #require(claims["iat"]?.int64Value) == 3600)
    }

    @Test func concurrentCallersShareOneToken() async throws {
        let provider = BearerTokenProvider(key: key, clock: { Self.start })
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask { try provider.token() }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(provider.signedTokenCount == 1)
    }

    @Test func loadsAP8PrivateKey() throws {
        let privateKey = P256.Signing.PrivateKey()
        #expect(privateKey.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try AppStoreAPIKey(privateKeyPEM: privateKey.pemRepresentation, keyID: "K", issuerID: "I", bundleID: "B")
        #expect(loaded.publicKey.rawRepresentation == privateKey.publicKey.rawRepresentation)
    }

    @Test func badKeysGiveErrorsThatCarryNoKeyMaterial() throws {
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        let sec1 = P256.Signing.PrivateKey().derRepresentation
        let sec1PEM = "-----BEGIN EC PRIVATE KEY-----\n\(sec1.base64EncodedString(options: .lineLength64Characters))\n-----END EC PRIVATE KEY-----"
        let truncated = String(P256.Signing.PrivateKey().pemRepresentation.dropLast(40))
        let cases: [(String, APIKeyError)] = [
            ("", .notPEM),
            ("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg", .notPEM),
            (truncated, .notPEM),
            (p384, .notP256PrivateKey),
            (P256.Signing.PrivateKey().publicKey.pemRepresentation, .unexpectedPEMLabel("PUBLIC KEY")),
            (sec1PEM, .unexpectedPEMLabel("EC PRIVATE KEY")),
        ]
        for (pem, expected) in cases {
            #expect(throws: expected) {
                try AppStoreAPIKey(privateKeyPEM: pem, keyID: "K", issuerID: "I", bundleID: "B")
            }
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 8 }
            for line in body {
                #expect(!expected.description.contains(line))
                #expect(!String(describing: expected).contains(line))
            }
        }
    }

    @Test func emptyIdentifiersAreRefused() {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        #expect(throws: APIKeyError.invalidField("keyID")) {
            try AppStoreAPIKey(privateKeyPEM: pem, keyID: "", issuerID: "I", bundleID: "B")
        }
        #expect(throws: APIKeyError.invalidField("bundleID")) {
            try AppStoreAPIKey(privateKeyPEM: pem, keyID: "K", issuerID: "I", bundleID: "com.example\n")
        }
    }

    @Test func printingAKeyShowsNoKeyMaterial() throws {
        let privateKey = P256.Signing.PrivateKey()
        let loaded = try AppStoreAPIKey(privateKeyPEM: privateKey.pemRepresentation, keyID: "K1", issuerID: "I1", bundleID: "B1")
        let secrets = [
            privateKey.rawRepresentation.base64EncodedString(),
            Base64URL.encode(privateKey.rawRepresentation),
            privateKey.rawRepresentation.map { String(format: "%02x", $0) }.joined(),
        ] + privateKey.pemRepresentation.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        for printed in [loaded.description, loaded.debugDescription, String(describing: loaded), String(reflecting: loaded), "\(loaded)"] {
            #expect(printed.contains("K1"))
            for secret in secrets {
                #expect(!printed.contains(secret))
            }
        }
    }
}
