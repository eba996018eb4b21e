import SubReconModel

/// What a run's written answers add up to: how many of each outcome, the circuit breaker over
/// them, and why the run ended early, if it did.
struct RunTally: Sendable {
    private(set) var counts: [RunItemOutcome: Int] = [:]
    /// Why the run stopped starting verifications (the first reason given); nil while it goes on.
    private(set) var endedEarly: EarlyEnd?
    private var breaker: CircuitBreaker

    init(breaker: CircuitBreaker) {
        self.breaker = breaker
    }

    /// Answers written (or, in a dry run, that would have been).
    var processed: Int { counts.values.reduce(0, +) }

    /// Counts one written answer. True when it opened the circuit breaker and so ended the run
    /// (the one time to say so). A skipped receipt says nothing about Apple: the breaker does not
    /// see it.
    mutating func record(_ outcome: RunItemOutcome) -> Bool {
        counts[outcome, default: 0] += 1
        if outcome == .failed {
            if breaker.record(failed: true), endedEarly == nil {
                endedEarly = .circuitBreakerOpen
                return true
            }
        } else if outcome != .skipped {
            _ = breaker.record(failed: false)
        }
        return false
    }

    /// The run stops for `reason`, unless it already stopped for another.
    mutating func end(_ reason: EarlyEnd) {
        endedEarly = endedEarly ?? reason
    }

    /// How the run ended, when Apple stopped `stoppedLanes` of its `lanes`: aborted when Apple
    /// stopped every app or the circuit breaker opened, interrupted from outside (a signal,
    /// another process took the lock), else completed.
    func status(stoppedLanes: Int, of lanes: Int) -> RunStatus {
        if stoppedLanes == lanes { return .aborted }
        if let endedEarly { return endedEarly == .circuitBreakerOpen ? .aborted : .interrupted }
        return .completed
    }
}
