import AppleSignedData
import Synchronization

/// `SimulatedApp.apiRateLimit`: a token bucket over all of one app's Server API requests (every
/// endpoint, both environments) holding one second's worth of requests, refilled continuously. A request
/// finding it empty is answered 429 with `Retry-After` at the time a token will be there.
final class ServerAPIRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var last: ContinuousClock.Instant
    }

    let ratePerSecond: Double
    private let capacity: Double
    private let bucket: Mutex<Bucket>

    init(ratePerSecond: Double) {
        self.ratePerSecond = max(0.001, ratePerSecond)
        capacity = max(1, ratePerSecond)
        bucket = Mutex(Bucket(tokens: max(1, ratePerSecond), last: .now))
    }

    /// nil when the request may go ahead (a token is taken), else milliseconds until one is free.
    func admit() -> Int64? {
        let now = ContinuousClock.now
        return bucket.withLock { bucket in
            let elapsed = bucket.last.duration(to: now)
            let seconds = elapsed.seconds
            bucket.tokens = min(capacity, bucket.tokens + seconds * ratePerSecond)
            bucket.last = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            let missing = 1 - bucket.tokens
            return max(1, Int64((missing / ratePerSecond * 1000).rounded(.up)))
        }
    }
}
