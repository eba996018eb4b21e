/// Where one app's events go, and how they are signed: the endpoint's URL as configured and the
/// Standard Webhooks headers for an attempt (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
public struct WebhookTarget: Sendable {
    public var url: String
    /// (event id, Unix seconds of the attempt, body) → the signature headers.
    public var signatureHeaders: @Sendable (String, Int64, [UInt8]) -> [(name: String, value: String)]

    public init(url: String, signatureHeaders: @escaping @Sendable (String, Int64, [UInt8]) -> [(name: String, value: String)]) {
        self.url = url
        self.signatureHeaders = signatureHeaders
    }
}
