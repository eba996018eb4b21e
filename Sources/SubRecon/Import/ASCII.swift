
/// Byte-level helpers shared by the import readers; everything here is ASCII-only on purpose.
enum ASCII {
    /// Space, tab, carriage return or line feed.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// `string` without leading and trailing ASCII whitespace; returns `string` itself (no copy)
    /// when there is none.
    static func trimmingWhitespace(_ string: String) -> String {
        let utf8 = string.utf8
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
              let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        if first == utf8.startIndex, utf8.index(after: last) == utf8.endIndex { return string }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
