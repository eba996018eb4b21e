import SubReconModel

/// How often and how patiently one receipt is retried within a run when Apple (or the network)
/// gives no usable answer: exponential backoff with full jitter, a bounded number of attempts,
/// and Apple's `Retry-After` honoured when it asks for a wait we can afford.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts per receipt per run, the first one included (1 = no retry).
    public var maxAttempts: Int
    /// The backoff before retry n is a random duration in 0 ... min(maxDelay, baseDelay × 2^(n-1)).
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A `Retry-After` longer than this ends the receipt's attempts for this run (it stays due).
    public var maxRetryAfter: Duration

    public static let standard = RetryPolicy()

    public init(
        maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait before the next attempt after `attempt` attempts failed, or nil to give up now.
    /// - Parameter random: a uniform value in 0..<1 (injected so tests are deterministic).
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(attempt - 1, 30)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        let jittered = ceiling * min(max(random, 0), 1)
        guard let retryAfter else { return jittered }
        guard retryAfter <= maxRetryAfter else { return nil }
        return max(jittered, retryAfter)
    }
}
