import Foundation

/// A strict, fast reader for the common shape of a verifyReceipt request: one JSON object whose
/// values are strings, `true`, `false` or `null`. Returns nil for anything else (numbers, nested
/// values, `\u` escapes, invalid JSON), and the caller falls back to `JSONSerialization`.
///
/// Exists for speed: `JSONSerialization` was most of the simulator's own per-request cost
/// (docs/performance.md, "Earlier figures behind the code's choices").
struct FlatJSONObjectScanner {
    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case null
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func scan(_ bytes: [UInt8]) -> [String: Value]? {
        var scanner = FlatJSONObjectScanner(bytes)
        return scanner.object()
    }

    private mutating func object() -> [String: Value]? {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        var result: [String: Value] = [:]
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = value(), result.updateValue(value, forKey: key) == nil else { return nil }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        skipWhitespace()
        return index == bytes.count ? result : nil
    }

    private mutating func value() -> Value? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return nil
        }
    }

    private mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        let (end, hasEscapes, isASCII) = bytes.withUnsafeBufferPointer { buffer -> (Int?, Bool, Bool) in
            Self.stringEnd(in: buffer, from: start)
        }
        guard let end else { return nil }
        index = end + 1
        return bytes.withUnsafeBufferPointer { buffer in
            let raw = UnsafeBufferPointer(rebasing: buffer[start..<end])
            if hasEscapes { return Self.unescape(raw) }
            // ASCII needs no validation, and `String(decoding:)` has a fast contiguous path.
            return isASCII ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
        }
    }

    /// Index of the quote closing a string that starts at `start`, whether the string has
    /// escapes, and whether it is pure ASCII; nil end when unterminated or holding a control byte.
    /// Two branch-free passes over the common escape-free string (memchr, then a reduction the
    /// compiler vectorises) because this walks the whole 4–5 KB receipt on every request.
    private static func stringEnd(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int?, Bool, Bool) {
        guard start < buffer.count,
              let base = buffer.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: "\"")), buffer.count - start)
        else { return (nil, false, false) }
        let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        var highBits: UInt8 = 0
        var lowest: UInt8 = 0xFF
        var backslashes: UInt8 = 0
        for byte in UnsafeBufferPointer(rebasing: buffer[start..<quote]) {
            highBits |= byte
            lowest = min(lowest, byte)
            backslashes |= byte == UInt8(ascii: "\\") ? 1 : 0
        }
        if backslashes == 0 {
            return (lowest < 0x20 ? nil : quote, false, highBits < 0x80)
        }
        // Escapes: the first quote may be an escaped one, so walk byte by byte.
        var position = start
        highBits = 0
        while position < buffer.count {
            let byte = buffer[position]
            highBits |= byte
            if byte == UInt8(ascii: "\"") { return (position, true, highBits < 0x80) }
            if byte < 0x20 { return (nil, true, false) }
            if byte == UInt8(ascii: "\\") {
                position += 1
            }
            position += 1
        }
        return (nil, true, false)
    }

    /// Handles the single-character escapes (base64 from some encoders arrives as `\/`).
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        var out = [UInt8](repeating: 0, count: raw.count)
        var count = 0
        var position = 0
        let ok = out.withUnsafeMutableBufferPointer { out -> Bool in
            while position < raw.count {
                var byte = raw[position]
                position += 1
                if byte == UInt8(ascii: "\\") {
                    guard position < raw.count else { return false }
                    switch raw[position] {
                    case UInt8(ascii: "\""): byte = UInt8(ascii: "\"")
                    case UInt8(ascii: "\\"): byte = UInt8(ascii: "\\")
                    case UInt8(ascii: "/"): byte = UInt8(ascii: "/")
                    case UInt8(ascii: "b"): byte = 0x08
                    case UInt8(ascii: "f"): byte = 0x0C
                    case UInt8(ascii: "n"): byte = 0x0A
                    case UInt8(ascii: "r"): byte = 0x0D
                    case UInt8(ascii: "t"): byte = 0x09
                    default: return false  // \u…, or invalid: leave it to JSONSerialization
                    }
                    position += 1
                }
                out[count] = byte
                count += 1
            }
            return true
        }
        guard ok else { return nil }
        return out[..<count].withUnsafeBufferPointer { utf8 in
            utf8.allSatisfy { $0 < 0x80 } ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in
            bytes[index..<index + count].elementsEqual(expected)
        }
        if matches { index += count }
        return matches
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count,
              bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }
}
