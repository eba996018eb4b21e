import Crypto
import Foundation
@testable import SubRecon
import SubReconModel
import SubReconTestSupport
import Testing

/// Standard Webhooks v1 signatures, checked against the standard's own example and against the
/// standard-webhooks project's Python library (an independent implementation).
@Suite("Webhook signer")
struct WebhookSignerTests {
    /// The standard's example: secret, message id, timestamp, body and the signature it gives.
    static let exampleSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let exampleID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let exampleTimestamp: Int64 = 1_614_265_330
    static let exampleBody = Array(#"{"test": 2432232314}"#.utf8)
    static let exampleSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

    static func signer(_ texts: [String]) throws -> WebhookSigner {
        WebhookSigner(secrets: try texts.map { try WebhookSecret(text: $0) })
    }

    /// A body like an event's: JSON, UTF-8 with non-ASCII text.
    static let eventBody = Array(
        #"{"id":"0b6f3c1e-8f8e-4c1a-9d5e-2f1e7d1c0a11","type":"subscription.renewed","user_id":"Zoë 🍋","seq":7}"#.utf8)
    static let eventID = "0b6f3c1e-8f8e-4c1a-9d5e-2f1e7d1c0a11"

    @Test func theStandardsExampleSignsAsTheStandardSays() throws {
        let headers = try Self.signer([Self.exampleSecret]).headers(
            eventID: Self.exampleID, timestampSeconds: Self.exampleTimestamp, body: Self.exampleBody)
        #expect(headers.map(\.name) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers.map(\.value) == [Self.exampleID, "1614265330", Self.exampleSignature])
    }

    @Test func theSignatureIsHMACSHA256OverIdTimestampAndBody() throws {
        let secret = WebhookSecret.generate()
        let key = try WebhookSecret(text: secret).keyBytes
        let expected = HMAC<SHA256>.authenticationCode(
            for: Array("\(Self.eventID).1700000000.".utf8) + Self.eventBody, using: SymmetricKey(data: key))
        let signature = try Self.signer([secret]).signature(eventID: Self.eventID, timestampSeconds: 1_700_000_000, body: Self.eventBody)
        #expect(signature == "v1," + Data(expected).base64EncodedString())
        #expect(signature.hasSuffix("="))  // 32 bytes: padded base64, 44 characters
        #expect(signature.count == 3 + 44)
    }

    @Test func aRotationSignsWithEverySecretInFileOrder() throws {
        let first = WebhookSecret.generate()
        let second = WebhookSecret.generate()
        let both = try Self.signer([first, second]).signature(eventID: "e", timestampSeconds: 5, body: [1, 2])
        let alone = try [first, second].map { try Self.signer([$0]).signature(eventID: "e", timestampSeconds: 5, body: [1, 2]) }
        #expect(both == alone.joined(separator: " "))
        #expect(both.split(separator: " ").count == 2)
    }

    @Test func theStandardWebhooksLibrarySignsTheSameBytes() throws {
        let secret = WebhookSecret.generate()
        let signer = try Self.signer([secret])
        var deliveries: [StandardWebhooksVerifier.Delivery] = []
        for (id, timestamp, body) in [
            (Self.exampleID, Self.exampleTimestamp, Self.exampleBody), (Self.eventID, Int64(1_764_558_000), Self.eventBody),
            ("e", Int64(0), [UInt8]()),
        ] {
            deliveries.append(.init(secret: secret, headers: signer.headers(eventID: id, timestampSeconds: timestamp, body: body), body: body))
        }
        deliveries.append(
            .init(
                secret: Self.exampleSecret,
                headers: try Self.signer([Self.exampleSecret]).headers(
                    eventID: Self.exampleID, timestampSeconds: Self.exampleTimestamp, body: Self.exampleBody),
                body: Self.exampleBody))
        let verdicts = try StandardWebhooksVerifier.check(deliveries)
        for (delivery, verdict) in zip(deliveries, verdicts) {
            #expect(verdict.signature == delivery.headers["webhook-signature"])
        }
        #expect(verdicts.last?.signature == Self.exampleSignature)
    }

    @Test func theStandardWebhooksLibraryVerifiesOurDeliveriesAndNothingElse() throws {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let stranger = WebhookSecret.generate()
        let now = Int64(Date().timeIntervalSince1970)
        let headers = try Self.signer([new, old]).headers(eventID: Self.eventID, timestampSeconds: now, body: Self.eventBody)
        var tamperedID = headers
        tamperedID[0].value = "0b6f3c1e-8f8e-4c1a-9d5e-2f1e7d1c0a12"
        var tamperedTime = headers
        tamperedTime[1].value = String(now + 1)
        let verified = try StandardWebhooksVerifier.verified([
            .init(secret: new, headers: headers, body: Self.eventBody),
            .init(secret: old, headers: headers, body: Self.eventBody),  // a receiver still on the old secret
            .init(secret: stranger, headers: headers, body: Self.eventBody),
            .init(secret: new, headers: headers, body: Self.eventBody + Array(" ".utf8)),
            .init(secret: new, headers: tamperedID, body: Self.eventBody),
            .init(secret: new, headers: tamperedTime, body: Self.eventBody),
        ])
        #expect(verified == [true, true, false, false, false, false])
    }
}

extension WebhookSignerTests {
    /// The async form end-to-end tests use (it waits off the cooperative pool) says the same.
    @Test func theAsyncFormOfTheVerifierAgrees() async throws {
        let secret = WebhookSecret.generate()
        let headers = try Self.signer([secret]).headers(
            eventID: Self.eventID, timestampSeconds: Int64(Date().timeIntervalSince1970), body: Self.eventBody)
        let verified = try await StandardWebhooksVerifier.verified([
            .init(secret: secret, headers: headers, body: Self.eventBody),
            .init(secret: WebhookSecret.generate(), headers: headers, body: Self.eventBody),
        ])
        #expect(verified == [true, false])
    }
}
