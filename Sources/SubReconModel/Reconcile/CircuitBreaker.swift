/// Stops a run from hammering Apple during an outage: once most of the recent receipts got no
/// usable answer (after their retries), the run schedules nothing more and ends with exit 1;
/// everything unprocessed stays due. Pure state, fed by the pipeline.
public struct CircuitBreaker: Sendable, Equatable {
    public var window: Int
    public var minimumSamples: Int
    public var failureRatio: Double
    private var recent: [Bool] = []
    private var next = 0

    public static let standard = CircuitBreaker(window: 50, minimumSamples: 20, failureRatio: 0.8)

    public init(window: Int, minimumSamples: Int, failureRatio: Double) {
        self.window = max(1, window)
        self.minimumSamples = max(1, min(minimumSamples, window))
        self.failureRatio = failureRatio
    }

    /// Records one receipt's final outcome; returns true when the breaker is now open.
    public mutating func record(failed: Bool) -> Bool {
        if recent.count < window {
            recent.append(failed)
        } else {
            recent[next] = failed
            next = (next + 1) % window
        }
        return isOpen
    }

    public var isOpen: Bool {
        guard recent.count >= minimumSamples else { return false }
        let failures = recent.reduce(0) { $0 + ($1 ? 1 : 0) }
        return Double(failures) >= failureRatio * Double(recent.count)
    }
}
