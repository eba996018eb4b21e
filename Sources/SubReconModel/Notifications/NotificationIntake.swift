/// Where a notification body came from: Apple's POST to the receiver, a forwarded JSON Lines
/// file (`notifications import`), or Apple's notification history (`notifications backfill`).
public enum NotificationSource: String, Sendable, CaseIterable {
    case receiver
    case `import`
    case backfill
}

/// What became of a stored notification (`report notifications`, column `outcome`).
public enum NotificationOutcome: String, Sendable, CaseIterable {
    /// Applied to its subscription through the run's derivation and writer.
    case applied
    /// Older (by `signedDate`) than what was stored for its subscription: kept, not applied.
    case stale
    /// No stored receipt knows its transaction yet; linked and applied when one is imported.
    case unmatched
    /// Apple's `TEST` notification.
    case test
    /// Verified and ours, but about nothing subrecon tracks (a mass-extension summary, a
    /// one-time purchase, a product outside SUBRECON_PRODUCTS, an external purchase token).
    case ignored
}

/// Why a notification body was refused (answered 400, nothing stored); a metrics label.
public enum NotificationRefusal: String, Sendable, CaseIterable, Error {
    /// Not JSON, no `signedPayload`, or a payload that is not the expected JSON.
    case malformed
    /// The JWS, its chain or a nested signed item failed verification.
    case signature
    /// Another app's bundle id (or app id).
    case bundle
    /// An environment this receiver does not accept (Xcode, LocalTesting, or a mismatch).
    case environment
}

/// What `NotificationIntake.receive` did with one body.
public enum NotificationIntakeResult: Sendable, Equatable {
    /// Stored (or already stored: `duplicate`), answered 200.
    case stored(uuid: String, outcome: NotificationOutcome, duplicate: Bool, signedDateMs: Int64)
    /// Refused, nothing stored, answered 400; `message` is operator-facing and holds no secret.
    case refused(NotificationRefusal, message: String)
    /// The store could not be reached or failed: nothing stored, answered 503 so Apple retries.
    case unavailable(message: String)
}

/// Verifies one notification body (`{"signedPayload": "..."}`) and stores and applies it in one
/// transaction. The receiver, `notifications import` and `notifications backfill` all go through it.
public protocol NotificationIntake: Sendable {
    func receive(body: [UInt8], source: NotificationSource) async -> NotificationIntakeResult
}
