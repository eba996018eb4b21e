import ArgumentParser

/// `subrecon webhooks …`: every event delivered to the app's backend as a signed Standard Webhook,
/// in order per subscription, at least once. Each subcommand is a file of its own.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Deliver events to the app's backend as signed webhooks (Standard Webhooks), in order, at least once.",
        discussion: """
            Each app's events go to its URL (SUBRECON_WEBHOOK_URL, or webhook_url in the apps \
            file), signed with its secret file's secrets (SUBRECON_WEBHOOK_SECRET_FILE, or \
            webhook_secret_file). An app without a URL has its events recorded and never sent.

            Examples:
              (umask 077; subrecon webhooks secret > webhook.secret)
              subrecon webhooks deliver --max-seconds 50
              subrecon webhooks replay --since 2026-12-01 --dead-only
              subrecon webhooks skip --until 2026-12-07
            """,
        subcommands: [
            WebhooksDeliverCommand.self, WebhooksReplayCommand.self, WebhooksSkipCommand.self, WebhooksSecretCommand.self,
        ])
}
