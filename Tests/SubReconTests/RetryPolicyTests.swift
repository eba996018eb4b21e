import Logging
import Synchronization
import Testing

@testable import SubReconAppStore
@testable import SubReconModel

/// The one retry loop every Apple call shares, without a network and without waiting: the waits
/// are recorded by an injected sleep.
@Suite struct RetryPolicyTests {
    /// Records each wait and returns at once (or throws, as a cancelled `Task.sleep` does).
    final class Sleeps: Sendable {
        private let waits = Mutex<[Duration]>([])
        let cancelAt: Int?

        init(cancelAt: Int? = nil) { self.cancelAt = cancelAt }

        var recorded: [Duration] { waits.withLock { $0 } }

        var sleep: RetryPolicy.Sleep {
            { wait in
                let count = self.waits.withLock { waits -> Int in
                    waits.append(wait)
                    return waits.count
                }
                if count == self.cancelAt { throw CancellationError() }
            }
        }
    }

    static let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1), maxRetryAfter: .seconds(60))

    /// Transient failures are tried again up to the attempts, each wait the jittered exponential backoff.
    @Test func transientFailuresAreRetriedWithExponentialBackoffUpToTheAttempts() async {
        let sleeps = Sleeps()
        let attempts = Mutex(0)
        let retried: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: sleeps.sleep, random: { 1 }) { number in
            attempts.withLock { $0 = number }
            return .transient("timed out")
        }
        guard case .exhausted(let failure, let count) = retried else { Issue.record("\(retried)"); return }
        #expect(failure == "timed out")
        #expect(count == 4)
        #expect(attempts.withLock { $0 } == 4)
        #expect(sleeps.recorded == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test func theBackoffIsCappedAndJittered() {
        #expect(Self.policy.delay(afterAttempt: 3, retryAfter: nil, random: 0.5) == .milliseconds(200))
        let capped = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(500), maxDelay: .seconds(2))
        #expect(capped.delay(afterAttempt: 8, retryAfter: nil, random: 1) == .seconds(2))
        #expect(capped.delay(afterAttempt: 10, retryAfter: nil, random: 1) == nil)
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test func aSuccessAfterATransientFailureEndsTheAttempts() async {
        let sleeps = Sleeps()
        let retried: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: sleeps.sleep, random: { 0 }) { number in
            number < 3 ? .transient("503") : .success(number)
        }
        guard case .success(let value) = retried else { Issue.record("\(retried)"); return }
        #expect(value == 3)
        #expect(sleeps.recorded.count == 2)
    }

    @Test func aFinalFailureIsNotRetried() async {
        let sleeps = Sleeps()
        let retried: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: sleeps.sleep) { _ in .failure("401") }
        guard case .failure(let failure, let attempts) = retried else { Issue.record("\(retried)"); return }
        #expect(failure == "401")
        #expect(attempts == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    /// Apple's `Retry-After` is waited at least; one longer than the policy allows ends the attempts.
    @Test func retryAfterIsHonouredUnlessItIsTooLong() async {
        let sleeps = Sleeps()
        let retried: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: sleeps.sleep, random: { 1 }) { number in
            number == 1 ? .transient("429", retryAfter: .seconds(5)) : .success(number)
        }
        guard case .success = retried else { Issue.record("\(retried)"); return }
        #expect(sleeps.recorded == [.seconds(5)])

        let tooLong = Sleeps()
        let refused: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: tooLong.sleep) { _ in
            .transient("429", retryAfter: .seconds(61))
        }
        guard case .exhausted(_, let attempts) = refused else { Issue.record("\(refused)"); return }
        #expect(attempts == 1)
        #expect(tooLong.recorded.isEmpty)
    }

    /// A cancelled wait ends the attempts: the cancellation is not swallowed into another attempt.
    @Test func cancellationDuringTheWaitEndsTheAttempts() async {
        let sleeps = Sleeps(cancelAt: 1)
        let attempts = Mutex(0)
        let retried: RetryPolicy.Retried<Int, String> = await Self.policy.run(sleep: sleeps.sleep) { number in
            attempts.withLock { $0 = number }
            return .transient("503")
        }
        guard case .cancelled(_, let count, let whileWaiting) = retried else { Issue.record("\(retried)"); return }
        #expect(count == 1)
        #expect(whileWaiting)
        #expect(attempts.withLock { $0 } == 1)
    }

    /// The real sleep: a cancelled task neither waits the backoff nor tries again.
    @Test func aCancelledTaskIsNotRetried() async {
        let slow = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(600), maxDelay: .seconds(600))
        let attempts = Mutex(0)
        let task = Task { () -> RetryPolicy.Retried<Int, String> in
            await slow.run(random: { 1 }) { number in
                attempts.withLock { $0 = number }
                return .transient("503")
            }
        }
        task.cancel()
        let clock = ContinuousClock()
        let start = clock.now
        let retried = await task.value
        // A wait that ignored the cancellation would last the whole 600 s backoff; the bound is far
        // from it because a loaded host delays the task itself (23 s seen in a full parallel suite).
        #expect(clock.now - start < .seconds(300))
        guard case .cancelled(_, let count, _) = retried else { Issue.record("\(retried)"); return }
        #expect(count == 1)
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test(arguments: [
        (429, nil, true), (408, nil, true), (500, nil, true), (503, 5_000_001, true), (404, 4_040_004, true),
        (404, 4_040_002, true), (404, 4_040_001, false), (400, 4_000_006, false), (401, nil, false), (404, nil, false),
    ] as [(Int, Int?, Bool)])
    func whichRefusalsAreTransient(status: Int, code: Int?, transient: Bool) {
        #expect(RetryPolicy.isTransient(status: status, code: code.map(ServerAPIErrorCode.init(rawValue:))) == transient)
    }

    // MARK: - A receipt's verification

    static let receipt = ReceiptToVerify(id: 7, userID: "u", receiptData: "", environment: .production)

    static func failure(retryable: Bool) -> VerificationOutcome {
        .failed(VerificationFailure(appleStatus: 503, environment: .production, message: "HTTP 503", isRetryable: retryable))
    }

    @Test func aReceiptRetriedToTheEndSaysHowManyAttempts() async {
        let sleeps = Sleeps()
        let outcome = await Self.policy.verify(Self.receipt, logger: Logger(label: "test"), sleep: sleeps.sleep) {
            Self.failure(retryable: true)
        }
        guard case .failed(let failure) = outcome else { Issue.record("\(outcome)"); return }
        #expect(failure.message == "HTTP 503 (after 4 attempts)")
        #expect(failure.attempts == 4)
        #expect(sleeps.recorded.count == 3)
    }

    @Test func aReceiptsFinalFailureIsReturnedAsItIs() async {
        let sleeps = Sleeps()
        let outcome = await Self.policy.verify(Self.receipt, logger: Logger(label: "test"), sleep: sleeps.sleep) {
            Self.failure(retryable: false)
        }
        guard case .failed(let failure) = outcome else { Issue.record("\(outcome)"); return }
        #expect(failure == VerificationFailure(appleStatus: 503, environment: .production, message: "HTTP 503", isRetryable: false))
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func aReceiptWhoseWaitIsCancelledIsNotRetried() async {
        let sleeps = Sleeps(cancelAt: 2)
        let outcome = await Self.policy.verify(Self.receipt, logger: Logger(label: "test"), sleep: sleeps.sleep) {
            Self.failure(retryable: true)
        }
        guard case .failed(let failure) = outcome else { Issue.record("\(outcome)"); return }
        #expect(failure.message == "HTTP 503 (run stopping; not retried)")
        #expect(failure.attempts == 2)
    }
}
