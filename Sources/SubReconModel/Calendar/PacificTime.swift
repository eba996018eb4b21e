import Foundation

/// Instants (Unix milliseconds) to the Pacific-time day Apple's sales reports use, and back.
///
/// Apple dates downloaded reports in `America/Los_Angeles` (DST-aware; never a fixed −8 h), read
/// here from the system's time-zone database through Foundation. Asking Foundation for every one
/// of a million ledger rows is slow, so the zone's offset transitions are read once for a span of
/// years and looked up by binary search; instants outside the span ask Foundation directly.
public struct PacificTime: Sendable {
    public static let identifier = "America/Los_Angeles"

    private let zone: TimeZone
    /// Offset changes, ascending: from `transitionsMs[i]` on, the offset is `offsetsSeconds[i]`.
    private let transitionsMs: [Int64]
    private let offsetsSeconds: [Int64]
    /// The span the table covers: [start, end).
    private let coveredMs: Range<Int64>

    /// Reads the zone from the system. Throws when the system has no time-zone data for it.
    public init() throws(PacificTimeError) {
        try self.init(identifier: PacificTime.identifier)
    }

    /// Any zone, for tests; the parity report uses ``init()``.
    package init(identifier: String, fromYear: Int = 1990, toYear: Int = 2100) throws(PacificTimeError) {
        // Without tzdata, Foundation may fall back to GMT under the asked name's absence: check
        // both that a zone came back and that it is the one asked for.
        guard let zone = TimeZone(identifier: identifier), zone.identifier == identifier else {
            throw PacificTimeError.timeZoneMissing(identifier: identifier)
        }
        self.zone = zone
        let startMs = (CalendarDay(year: fromYear, month: 1, day: 1)?.ordinal ?? 0) * PacificTime.dayMs
        let endMs = (CalendarDay(year: toYear, month: 1, day: 1)?.ordinal ?? 0) * PacificTime.dayMs
        var transitions: [Int64] = [startMs]
        var offsets: [Int64] = [Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(startMs) / 1000)))]
        var cursor = Date(timeIntervalSince1970: Double(startMs) / 1000)
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor) {
            let ms = Int64((next.timeIntervalSince1970 * 1000).rounded())
            let previousMs = transitions.last ?? .min
            guard ms < endMs, previousMs < ms else { break }
            transitions.append(ms)
            offsets.append(Int64(zone.secondsFromGMT(for: next)))
            cursor = next
        }
        transitionsMs = transitions
        offsetsSeconds = offsets
        coveredMs = startMs..<endMs
    }

    /// The Pacific-time day of an instant.
    public func day(ofMs ms: Int64) -> CalendarDay {
        let localMs = ms + offsetSeconds(atMs: ms) * 1000
        return CalendarDay(ordinal: PacificTime.floorDivide(localMs, by: PacificTime.dayMs))
    }

    /// The UTC instant (ms) at which the Pacific day `day` begins (its local midnight).
    public func startMs(of day: CalendarDay) -> Int64 {
        let localMs = day.ordinal * PacificTime.dayMs
        // The offset in force at midnight: guess with the offset at local time read as UTC, then
        // correct once (Los Angeles changes at 02:00, so midnight is never skipped or repeated).
        let guess = localMs - offsetSeconds(atMs: localMs) * 1000
        return localMs - offsetSeconds(atMs: guess) * 1000
    }

    /// Seconds east of UTC at the instant (negative for Pacific time).
    package func offsetSeconds(atMs ms: Int64) -> Int64 {
        guard coveredMs.contains(ms) else {
            return Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000)))
        }
        // Last transition at or before ms.
        var low = 0
        var high = transitionsMs.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitionsMs[middle] <= ms { low = middle } else { high = middle - 1 }
        }
        return offsetsSeconds[low]
    }

    package static let dayMs: Int64 = 86_400_000

    package static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient
    }
}

/// Why Pacific days cannot be computed on this machine.
public enum PacificTimeError: Error, Equatable, CustomStringConvertible {
    case timeZoneMissing(identifier: String)

    public var description: String {
        switch self {
        case .timeZoneMissing(let identifier):
            "the time zone \(identifier) is not available on this system (no time-zone database): install the "
                + "tzdata package (e.g. apt-get install tzdata); Apple's sales reports are dated in Pacific time"
        }
    }
}
