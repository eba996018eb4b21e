import Synchronization

/// Apple's per-key hourly request budget for `/v1/salesReports`, counted in windows of one hour
/// of the simulator's clock (Apple's hour rolls; a fixed window is enough for a client to see its
/// remaining count fall and a 429 come).
final class SalesReportRateCounter: Sendable {
    private struct Window {
        var hour: Int64
        var count: Int
    }

    let limit: Int
    private let window = Mutex(Window(hour: .min, count: 0))

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Counts one request at `nowMs`: the requests left in its hour, and when the budget is spent
    /// the seconds until the next hour (the 429's `Retry-After`).
    func admit(atMs nowMs: Int64) -> (remaining: Int, retryAfterSeconds: Int?) {
        let hourMs: Int64 = 3_600_000
        let hour = nowMs >= 0 ? nowMs / hourMs : -((-nowMs + hourMs - 1) / hourMs)
        return window.withLock { window in
            if window.hour != hour { window = Window(hour: hour, count: 0) }
            guard window.count < limit else {
                let untilNextHour = (hour + 1) * hourMs - nowMs
                return (0, Int(max(1, (untilNextHour + 999) / 1000)))
            }
            window.count += 1
            return (limit - window.count, nil)
        }
    }

    /// The `X-Rate-Limit` header value.
    func header(remaining: Int) -> String {
        "user-hour-lim:\(limit);user-hour-rem:\(remaining);"
    }
}
