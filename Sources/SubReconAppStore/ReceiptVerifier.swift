import Logging
import SubReconModel

/// The seam between the run pipeline and whatever tells us what Apple knows about a receipt:
/// verifyReceipt or the App Store Server API, both mapped to `VerificationOutcome`.
public protocol ReceiptVerifier: Sendable {
    /// What the receipts handed to `verify` must carry.
    var receiptDetail: ReceiptDetail { get }
    func verify(_ receipt: ReceiptToVerify) async -> VerificationOutcome
}

extension ReceiptVerifier {
    public var receiptDetail: ReceiptDetail { .receiptOnly }
}

extension RetryPolicy {
    /// Runs `once` until it gives a usable outcome: a retryable failure is tried again after a
    /// jittered backoff (or Apple's `Retry-After`), up to the policy's attempts. Cancellation (a
    /// graceful stop) ends the waiting, not the attempt. Shared by both Apple clients.
    package func verify(
        _ receipt: ReceiptToVerify, logger: Logger, once: () async -> VerificationOutcome
    ) async -> VerificationOutcome {
        var attempt = 1
        while true {
            let outcome = await once()
            guard case .failed(var failure) = outcome else { return outcome }
            failure.attempts = attempt
            guard failure.isRetryable, !Task.isCancelled,
                let wait = delay(afterAttempt: attempt, retryAfter: failure.retryAfter, random: Double.random(in: 0..<1))
            else {
                if failure.isRetryable, attempt > 1 { failure.message += " (after \(attempt) attempts)" }
                return .failed(failure)
            }
            logger.debug(
                "retrying after a transient failure",
                metadata: [
                    "receipt.id": "\(receipt.id)", "retry.attempt": "\(attempt)", "retry.wait": "\(wait)",
                    "apple.status": "\(failure.appleStatus.map(String.init) ?? "-")",
                ])
            do {
                try await Task.sleep(for: wait)
            } catch {
                failure.message += " (run stopping; not retried)"
                return .failed(failure)
            }
            attempt += 1
        }
    }
}
