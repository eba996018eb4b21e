/// Misbehaviour to inject, globally or for one subscriber id, while the simulator runs.
///
/// `steps` are consumed one per request **per subscriber** (each subscriber id has its own
/// cursor, also under a global plan), so "fail once, then succeed" works for every receipt.
/// After the last step the real answer is given, unless `repeats` restarts the sequence.
public struct FaultPlan: Sendable, Hashable {
    /// Added to `SimulatorOptions.latency` for every affected request.
    public var extraLatency: Duration
    /// What the next requests get, in order; empty = only `extraLatency`.
    public var steps: [FaultStep]
    /// Cycle through `steps` forever instead of answering normally once they are used up.
    public var repeats: Bool
    /// Share of subscriber ids affected (chosen by a stable hash of the id); 1 = all.
    /// Lets a global plan hit e.g. 5% of receipts without listing them.
    public var fraction: Double

    public init(extraLatency: Duration = .zero, steps: [FaultStep] = [], repeats: Bool = false, fraction: Double = 1) {
        self.extraLatency = extraLatency
        self.steps = steps
        self.repeats = repeats
        self.fraction = fraction
    }

    /// Answer these Apple statuses first, one per request; 0 means the real answer.
    /// E.g. `[21005, 0]`: one "try again", then the real answer.
    public static func appleStatuses(_ statuses: [Int], isRetryable: Bool? = nil) -> FaultPlan {
        FaultPlan(steps: statuses.map { $0 == 0 ? .answer : .appleStatus($0, isRetryable: isRetryable) })
    }

    /// Every request gets `step`.
    public static func always(_ step: FaultStep) -> FaultPlan {
        FaultPlan(steps: [step], repeats: true)
    }

    /// Whether this plan touches `subscriberID` (see `fraction`).
    func selects(subscriberID: Int64) -> Bool {
        if fraction >= 1 { return true }
        if fraction <= 0 { return false }
        let hash = SplitMix64.mix(UInt64(bitPattern: subscriberID) ^ 0x5EED_FA17)
        return Double(hash >> 11) / Double(1 << 53) < fraction
    }
}
