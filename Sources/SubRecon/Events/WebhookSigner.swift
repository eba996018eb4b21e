import Crypto
import Foundation
import SubReconModel

/// Signs a delivery the Standard Webhooks (v1) way, so any of its verifier libraries checks us:
/// `webhook-signature` is `v1,` + padded standard base64 of HMAC-SHA256, keyed by the secret's
/// decoded bytes, over `<id>.<timestamp>.<body>`; with several secrets (a rotation) one such
/// signature per secret, in the secret file's order, space-separated.
public struct WebhookSigner: Sendable {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"

    /// The secrets' key bytes (SymmetricKey is not Sendable; making one per signature is cheap).
    private let keys: [[UInt8]]

    /// `secrets` in the file's order; at least one.
    public init(secrets: [WebhookSecret]) {
        precondition(!secrets.isEmpty, "a webhook is signed with at least one secret")
        keys = secrets.map(\.keyBytes)
    }

    /// The three Standard Webhooks headers of one attempt, in this order: `webhook-id`,
    /// `webhook-timestamp` (Unix seconds of the attempt), `webhook-signature`. The caller adds
    /// Content-Type and User-Agent.
    public func headers(eventID: String, timestampSeconds: Int64, body: [UInt8]) -> [(name: String, value: String)] {
        [
            (Self.idHeader, eventID),
            (Self.timestampHeader, String(timestampSeconds)),
            (Self.signatureHeader, signature(eventID: eventID, timestampSeconds: timestampSeconds, body: body)),
        ]
    }

    /// The `webhook-signature` value: `v1,<base64>` per secret, space-separated.
    public func signature(eventID: String, timestampSeconds: Int64, body: [UInt8]) -> String {
        var message = Array("\(eventID).\(timestampSeconds).".utf8)
        message.append(contentsOf: body)
        return keys.map { key in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))).base64EncodedString()
        }.joined(separator: " ")
    }
}
