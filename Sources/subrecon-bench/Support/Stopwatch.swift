import AppleSignedData

/// Wall time from a monotonic clock.
struct Stopwatch {
    private let start = ContinuousClock.now

    var seconds: Double {
        let elapsed = ContinuousClock.now - start
        return elapsed.seconds
    }
}
