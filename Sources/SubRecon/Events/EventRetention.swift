import Foundation
import SubReconModel

/// `SUBRECON_EVENT_RETENTION_DAYS` (default 30): how long delivered, dead and skipped events are
/// kept (from `created_at`); the nightly run removes older ones. Pending events are never removed.
public struct EventRetention: Sendable, Equatable {
    public var days: Int

    public static let variable = "SUBRECON_EVENT_RETENTION_DAYS"
    public static let standard = EventRetention(days: 30)

    public init(days: Int) { self.days = days }

    /// From the environment; a value that is not a whole number of days ≥ 0 is a configuration error.
    public init(environment: [String: String]) throws(ConfigurationError) {
        guard let text = environment[Self.variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            self = .standard
            return
        }
        guard let days = Int(text), days >= 0, days <= 36_500 else {
            throw .other("\(Self.variable) must be a whole number of days, 0 or more (got \(text))")
        }
        self.days = days
    }

    /// Events created before this time (ms) are past retention at `nowMs`.
    public func cutoff(nowMs: Int64) -> Int64 { nowMs - Int64(days) * 86_400_000 }
}
