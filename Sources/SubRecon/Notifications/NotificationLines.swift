import SubReconModel

/// Non-empty lines of a JSON Lines file, numbered from 1, and how a batch of them is reported.
public enum NotificationLines {
    /// The receiver's limit, for the same bodies.
    public static let maximumBodyBytes = 1 << 20

    public static func split(_ bytes: [UInt8]) -> [(number: Int, bytes: [UInt8])] {
        var lines: [(Int, [UInt8])] = []
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = raw[...]
            while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") { line = line.dropLast() }
            if !line.isEmpty { lines.append((index + 1, Array(line))) }
        }
        return lines
    }

    /// `stored 3 notification(s): 2 applied, 0 stale, …; 1 already stored`
    public static func summary(_ counts: [NotificationOutcome: Int], duplicates: Int) -> String {
        let stored = counts.values.reduce(0, +)
        let parts = NotificationOutcome.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        return "stored \(stored) notification(s): \(parts); \(duplicates) already stored"
    }
}

extension NotificationBackfill.Summary {
    /// The line `notifications backfill` prints, also when it stopped early.
    public var line: String {
        "\(pages) page(s), \(listed) notification(s) in Apple's history from "
            + "\(ISO8601.string(fromMilliseconds: sinceMs)) to \(ISO8601.string(fromMilliseconds: untilMs)); "
            + NotificationLines.summary(stored, duplicates: alreadyStored)
            + (refused > 0 ? "; \(refused) refused (see the log)" : "")
    }
}
