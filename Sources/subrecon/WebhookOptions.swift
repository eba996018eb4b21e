import ArgumentParser
import SubRecon

/// Where and how events are delivered (`webhooks deliver`, `serve`). Each flag wins over its
/// variable; a bad value is exit 2. With an apps file each app's URL and secret file are its
/// `webhook_url` and `webhook_secret_file`, and the two first flags are refused.
struct WebhookOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where the app's events are POSTed: https://, or http:// to 127.0.0.1, ::1 or localhost only (SUBRECON_WEBHOOK_URL).",
        valueName: "url"))
    var webhookURL: String?

    @Option(help: ArgumentHelp(
        "A file of signing secrets, one per line: whsec_ + base64 of 24 or more random bytes; the first signs, every line signs during a rotation (SUBRECON_WEBHOOK_SECRET_FILE).",
        valueName: "path"))
    var webhookSecretFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Subscriptions being delivered at once, 1 to 256 (SUBRECON_WEBHOOK_CONCURRENCY; default \(WebhookSettings.defaultConcurrency)).",
        valueName: "n"))
    var webhookConcurrency: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds one delivery attempt may take, all of it (SUBRECON_WEBHOOK_TIMEOUT; default \(Int(WebhookSettings.defaultTimeoutSeconds))).",
        valueName: "seconds"))
    var webhookTimeout: Double?

    /// The flags as given; the library resolves them with their variables.
    var flags: WebhookSettings.Flags {
        WebhookSettings.Flags(url: webhookURL, secretFile: webhookSecretFile, concurrency: webhookConcurrency, timeoutSeconds: webhookTimeout)
    }
}
