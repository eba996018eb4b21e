// STUB, to be replaced by the lead's real factory (verification + store + apply). Until then every
// notification is answered 503, so the receiver starts, serves and stops as it will for real, and
// Apple (or a test) would simply retry. `notifications serve` calls only `makeNotificationIntake`.
import Logging
import SubRecon

/// The intake `notifications serve` hands every body to, for the store it opened.
func makeNotificationIntake(
    store: any SubscriptionStore, global: GlobalOptions, verification: VerificationOptions, logger: Logger
) async throws -> any NotificationIntake {
    logger.warning("notification processing is not built yet: every notification is answered 503")
    return NotYetAvailableIntake()
}

/// Stands in for the real intake: stores nothing, answers "unavailable" (503: Apple retries).
private struct NotYetAvailableIntake: NotificationIntake {
    func receive(body: [UInt8], source: NotificationSource) async -> NotificationIntakeResult {
        .unavailable(message: "notification processing is not built yet")
    }
}
