import SubRecon

/// Observations in seconds counted into fixed buckets, as a Prometheus histogram exposes them.
struct SecondsHistogram: Sendable {
    let upperBounds: [Double]
    /// One count per upper bound, plus the last for everything above them (`+Inf`); not cumulative.
    private(set) var bucketCounts: [UInt64]
    private(set) var sum: Double = 0

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        self.bucketCounts = Array(repeating: 0, count: upperBounds.count + 1)
    }

    mutating func observe(_ seconds: Double) {
        let index = upperBounds.firstIndex { seconds <= $0 } ?? upperBounds.count
        bucketCounts[index] += 1
        sum += seconds
    }

    func write(_ name: String, _ help: String, to text: inout MetricsText) {
        text.histogram(name, help, upperBounds: upperBounds, bucketCounts: bucketCounts, sum: sum)
    }

    /// Request to answer: the buckets are finest around the receiver's p99 target
    /// (docs/performance.md, "Notifications receiver").
    static let requestBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// `signedDate` to stored: seconds for a live delivery, up to days for Apple's retries.
    static let lagBounds: [Double] = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1_800, 3_600, 21_600, 86_400, 604_800]
}
