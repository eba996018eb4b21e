import ArgumentParser
import SubReconModel

/// `subrecon webhooks secret`: a new signing secret on standard output. Needs no configuration and
/// writes nothing, so it runs anywhere (the operator puts the line in the secret file).
struct WebhooksSecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret",
        abstract: "Print a new random signing secret: whsec_ + base64 of 32 random bytes.",
        discussion: """
            Needs no configuration and writes nothing. To rotate, add the new secret as the file's \
            first line and keep the old one under it: every line signs, so the receiver may verify \
            with either; remove the old line once the receiver has the new secret.

            Examples:
              (umask 077; subrecon webhooks secret > /etc/subrecon/webhook.secret)
              subrecon webhooks secret | cat - webhook.secret > new.secret   # rotation
            """)

    func run() throws {
        Console.out(WebhookSecret.generate() + "\n")
    }
}
