#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The system clock in Unix milliseconds: the default clock of ``SignedDataVerifier`` and
/// ``BearerTokenProvider`` (tests inject their own `@Sendable () -> Int64`).
public enum WallClock {
    @Sendable public static func unixMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
