import SubReconModel

/// One app's webhook: where its events are POSTed and the secrets that sign them (read from
/// `secretFile`, in its order). Printing it never shows a secret.
public struct WebhookEndpoint: Sendable, Equatable {
    /// The URL as configured (checked: https, or http to a loopback host); path and query used as given.
    public var url: String
    /// The signing secrets in file order: the first signs, and during a rotation every one does.
    public var secrets: [WebhookSecret]
    /// The secret file's path: what may be stored or shown in place of the secrets.
    public var secretFile: String

    public init(url: String, secrets: [WebhookSecret], secretFile: String) {
        self.url = url
        self.secrets = secrets
        self.secretFile = secretFile
    }

    /// Signs this endpoint's deliveries with every secret.
    public var signer: WebhookSigner { WebhookSigner(secrets: secrets) }
}
