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
        _ receipt: ReceiptToVerify, logger: Logger, sleep: Sleep = RetryPolicy.taskSleep,
        once: () async -> VerificationOutcome
    ) async -> VerificationOutcome {
        let retried: Retried<VerificationOutcome, VerificationFailure> = await run(
            sleep: sleep,
            willRetry: { failure, attempt, wait in
                logger.debug(
                    "retrying after a transient failure",
                    metadata: [
                        "receipt.id": "\(receipt.id)", "retry.attempt": "\(attempt)", "retry.wait": "\(wait)",
                        "apple.status": "\(failure.appleStatus.map(String.init) ?? "-")",
                    ])
            }
        ) { attempt in
            let outcome = await once()
            guard case .failed(var failure) = outcome else { return .success(outcome) }
            failure.attempts = attempt
            return failure.isRetryable ? .transient(failure, retryAfter: failure.retryAfter) : .failure(failure)
        }
        switch retried {
        case .success(let outcome):
            return outcome
        case .failure(let failure, _):
            return .failed(failure)
        case .exhausted(var failure, let attempts), .cancelled(var failure, let attempts, whileWaiting: false):
            if attempts > 1 { failure.message += " (after \(attempts) attempts)" }
            return .failed(failure)
        case .cancelled(var failure, _, whileWaiting: true):
            failure.message += " (run stopping; not retried)"
            return .failed(failure)
        }
    }
}
