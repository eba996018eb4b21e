/// A `testNotificationToken` as Apple makes them: the notification's UUID, an underscore and
/// the time it was requested in milliseconds (`ce3af791-…-1674b43c1609_1672257030562`). The
/// simulator reads its notification back from the token, so it keeps no table of tokens.
struct TestNotificationToken: Sendable, Hashable {
    var notificationUUID: String
    var requestedMs: Int64

    init(notificationUUID: String, requestedMs: Int64) {
        self.notificationUUID = notificationUUID
        self.requestedMs = requestedMs
    }

    /// Parses a token; nil when it is not of that shape (Apple's `4000020`, invalid token).
    init?(text: Substring) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isLowercaseUUID(parts[0]),
              !parts[1].isEmpty, parts[1].utf8.count <= 15, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let ms = Int64(parts[1])
        else { return nil }
        self.init(notificationUUID: String(parts[0]), requestedMs: ms)
    }

    var text: String { "\(notificationUUID)_\(requestedMs)" }

    /// 8-4-4-4-12 lowercase hex digits, as the simulator's notification UUIDs are.
    private static func isLowercaseUUID(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
            }
        }
        return true
    }
}
