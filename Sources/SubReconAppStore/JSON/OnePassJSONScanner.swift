import Foundation
import SubReconModel

/// One forward pass over the bytes of a JSON body (Apple's answers and notifications). It validates JSON syntax as it goes
/// (RFC 8259, UTF-8), hands the caller the scalars it asks for as `ScannedValue`s and skips every
/// other value without building anything, yet validating it: a truncated or garbled body is
/// rejected as a whole, never half-read (a truncated body is a transport accident and is retried).
///
/// The caller drives it like a recursive-descent parser (`readObject`, `readArray`, `readValue`)
/// over the few levels it uses; values it doesn't want are skipped without recursion, so a hostile
/// body can't exhaust the stack, and nesting deeper than `maximumDepth` is rejected.
package struct OnePassJSONScanner {
    /// The body is not JSON, or not well-formed JSON: nothing in it can be trusted.
    package struct Malformed: Error {}

    /// Foundation's JSONDecoder limit, kept so that the same bodies are accepted.
    package static let maximumDepth = 512

    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private var index = 0
    /// Open containers, the current one included.
    private var depth = 0

    /// `bytes` must stay valid as long as the scanner and the values it returns are used.
    package init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        count = bytes.count
    }

    // MARK: - structure

    /// Skips a UTF-8 byte order mark at the start, which Foundation tolerates too.
    package mutating func skipByteOrderMark() {
        if count >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF { index = 3 }
    }

    /// Reads an object (the next value must be one): each member whose key `match` names is handed
    /// to `readMember`, which must read its value from the scanner it is given; the values of other
    /// keys are skipped. Keys are compared after their escapes are resolved, as JSON says.
    package mutating func readObject<Key>(
        keys match: (UnsafeRawBufferPointer) -> Key?,
        _ readMember: (Key, inout OnePassJSONScanner) throws(Malformed) -> Void
    ) throws(Malformed) {
        guard try enter(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            if let key = try readKey(match) {
                try readMember(key, &self)
            } else {
                _ = try readValue()
            }
        } while try next(closedBy: UInt8(ascii: "}"))
    }

    /// Reads an array (the next value must be one), handing each element to `readElement`, which
    /// must read it from the scanner it is given.
    package mutating func readArray(_ readElement: (inout OnePassJSONScanner) throws(Malformed) -> Void) throws(Malformed) {
        guard try enter(UInt8(ascii: "["), closedBy: UInt8(ascii: "]")) else { return }
        repeat {
            try readElement(&self)
        } while try next(closedBy: UInt8(ascii: "]"))
    }

    /// A member's key and the `:` after it, named by `match` (nil: a key the caller doesn't use).
    private mutating func readKey<Key>(_ match: (UnsafeRawBufferPointer) -> Key?) throws(Malformed) -> Key? {
        guard try peek() == UInt8(ascii: "\"") else { throw Malformed() }
        let key = try scanString()
        let named =
            key.kind == .escapedString
            ? Array(key.unescapedText().utf8).withUnsafeBytes { match($0) }
            : match(key.bytes)
        guard try peek() == UInt8(ascii: ":") else { throw Malformed() }
        index += 1
        return named
    }

    /// The next value's first byte (after whitespace), not consumed.
    @inline(__always) package mutating func peek() throws(Malformed) -> UInt8 {
        skipWhitespace()
        guard index < count else { throw Malformed() }
        return byte(index)
    }

    /// Reads one value: a scalar comes back as sent; an object or array is skipped (and validated)
    /// and comes back as `.container`.
    package mutating func readValue() throws(Malformed) -> ScannedValue {
        let first = try peek()
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try skipContainer()
            return ScannedValue(kind: .container, bytes: slice(index, index))
        default:
            return try scanScalar(startingWith: first)
        }
    }

    /// Reads a value into `slot` unless the key was already seen: Foundation's JSONDecoder keeps
    /// the first of duplicate keys, and so do we. A later duplicate is still validated.
    package mutating func readFirst(into slot: inout ScannedValue) throws(Malformed) {
        let value = try readValue()
        if !slot.isPresent { slot = value }
    }

    /// After the top-level value: only whitespace may follow.
    package mutating func expectEnd() throws(Malformed) {
        skipWhitespace()
        guard index == count else { throw Malformed() }
    }

    // MARK: - containers

    private mutating func enter(_ opening: UInt8, closedBy closing: UInt8) throws(Malformed) -> Bool {
        guard try peek() == opening, depth < Self.maximumDepth else { throw Malformed() }
        index += 1
        depth += 1
        guard try peek() == closing else { return true }
        index += 1
        depth -= 1
        return false
    }

    private mutating func next(closedBy closing: UInt8) throws(Malformed) -> Bool {
        switch try peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case closing:
            index += 1
            depth -= 1
            return false
        default:
            throw Malformed()
        }
    }

    /// Skips the object or array that starts here, validating all of it, with a loop and a bit
    /// per open container instead of recursion.
    private mutating func skipContainer() throws(Malformed) {
        var arrays = ContainerKinds()
        let outerDepth = depth
        defer { depth = outerDepth }
        // A value is expected here: the first of the container just opened or one after a comma.
        var afterOpening = false
        var expectingValue = true
        while true {
            if expectingValue {
                var next = try peek()
                let level = depth - outerDepth
                if level > 0 {
                    let closing = arrays[level] ? UInt8(ascii: "]") : UInt8(ascii: "}")
                    if afterOpening, next == closing {
                        index += 1
                        depth -= 1
                        if depth == outerDepth { return }
                        expectingValue = false
                        afterOpening = false
                        continue
                    }
                    if !arrays[level] {
                        guard next == UInt8(ascii: "\"") else { throw Malformed() }
                        _ = try scanString()
                        guard try peek() == UInt8(ascii: ":") else { throw Malformed() }
                        index += 1
                        next = try peek()
                    }
                }
                if next == UInt8(ascii: "{") || next == UInt8(ascii: "[") {
                    guard depth < Self.maximumDepth else { throw Malformed() }
                    index += 1
                    depth += 1
                    arrays[depth - outerDepth] = next == UInt8(ascii: "[")
                    afterOpening = true
                    continue
                }
                _ = try scanScalar(startingWith: next)
                afterOpening = false
                expectingValue = false
            } else {
                let level = depth - outerDepth
                let closing = arrays[level] ? UInt8(ascii: "]") : UInt8(ascii: "}")
                switch try peek() {
                case UInt8(ascii: ","):
                    index += 1
                    expectingValue = true
                case closing:
                    index += 1
                    depth -= 1
                    if depth == outerDepth { return }
                default:
                    throw Malformed()
                }
            }
        }
    }

    // MARK: - scalars

    /// `first` is the byte at the index (after whitespace).
    private mutating func scanScalar(startingWith first: UInt8) throws(Malformed) -> ScannedValue {
        switch first {
        case UInt8(ascii: "\""): return try scanString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try scanNumber()
        case UInt8(ascii: "t"): return try scanLiteral("true", .true)
        case UInt8(ascii: "f"): return try scanLiteral("false", .false)
        case UInt8(ascii: "n"): return try scanLiteral("null", .null)
        default: throw Malformed()
        }
    }

    private mutating func scanLiteral(_ word: StaticString, _ kind: ScannedValue.Kind) throws(Malformed) -> ScannedValue {
        let length = word.utf8CodeUnitCount
        guard count - index >= length, let base, memcmp(base + index, word.utf8Start, length) == 0 else { throw Malformed() }
        index += length
        return ScannedValue(kind: kind, bytes: slice(index - length, index))
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; what follows is the caller's business.
    private mutating func scanNumber() throws(Malformed) -> ScannedValue {
        let start = index
        var whole = true
        if byte(index) == UInt8(ascii: "-") { index += 1 }
        guard index < count else { throw Malformed() }
        if byte(index) == UInt8(ascii: "0") {
            index += 1
        } else {
            guard skipDigits() > 0 else { throw Malformed() }
        }
        if index < count, byte(index) == UInt8(ascii: ".") {
            index += 1
            whole = false
            guard skipDigits() > 0 else { throw Malformed() }
        }
        if index < count, byte(index) | 0x20 == UInt8(ascii: "e") {
            index += 1
            whole = false
            if index < count, byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw Malformed() }
        }
        return ScannedValue(kind: whole ? .integer : .decimal, bytes: slice(start, index))
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < count, byte(index) &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    /// At the opening quote; leaves the index after the closing one. Rejects raw control
    /// characters, unknown escapes, unpaired surrogate escapes and ill-formed UTF-8: such a string
    /// has no faithful Swift `String`, and no genuine answer holds one.
    private mutating func scanString() throws(Malformed) -> ScannedValue {
        index += 1
        let start = index
        var escaped = false
        while true {
            skipPlainASCII()
            guard index < count else { throw Malformed() }
            let next = byte(index)
            switch next {
            case UInt8(ascii: "\""):
                index += 1
                return ScannedValue(kind: escaped ? .escapedString : .string, bytes: slice(start, index - 1))
            case UInt8(ascii: "\\"):
                escaped = true
                try scanEscape()
            case 0..<0x20:
                throw Malformed()
            case 0x20..<0x80:
                index += 1
            default:
                try scanMultiByteCharacter(leading: next)
            }
        }
    }

    /// Skips 8 bytes at a time while none is a quote, a backslash, a control character or non-ASCII
    /// (most of an answer is long ASCII strings: `latest_receipt` is kilobytes of base64).
    private mutating func skipPlainASCII() {
        guard let base else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while count - index >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Per byte: zero (for the two above), below 0x20, or with its high bit set.
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word) | word
            let flagged = special & highs
            // The lowest flag is exact (borrows only spoil higher bytes): stop right at that byte.
            guard flagged == 0 else {
                index += flagged.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    /// At a backslash: one of `\" \\ \/ \b \f \n \r \t \uXXXX`, a high surrogate only with a low one.
    private mutating func scanEscape() throws(Malformed) {
        guard count - index >= 2 else { throw Malformed() }
        switch byte(index + 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hexQuad(at: index + 2)
            index += 6
            switch unit {
            case 0xD800...0xDBFF:
                guard count - index >= 6, byte(index) == UInt8(ascii: "\\"), byte(index + 1) == UInt8(ascii: "u") else {
                    throw Malformed()
                }
                let low = try hexQuad(at: index + 2)
                guard (0xDC00...0xDFFF).contains(low) else { throw Malformed() }
                index += 6
            case 0xDC00...0xDFFF:
                throw Malformed()
            default:
                break
            }
        default:
            throw Malformed()
        }
    }

    private func hexQuad(at offset: Int) throws(Malformed) -> UInt16 {
        guard count - offset >= 4 else { throw Malformed() }
        var value: UInt16 = 0
        for position in offset..<offset + 4 {
            guard let digit = Self.hexDigitValue(byte(position)) else { throw Malformed() }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    package static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A well-formed UTF-8 sequence of 2–4 bytes (Unicode table 3-7: no overlong forms, no
    /// surrogates, nothing above U+10FFFF).
    private mutating func scanMultiByteCharacter(leading: UInt8) throws(Malformed) {
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch leading {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: throw Malformed()
        }
        guard count - index >= length, secondRange.contains(byte(index + 1)) else { throw Malformed() }
        for position in index + 2..<index + length where byte(position) & 0xC0 != 0x80 { throw Malformed() }
        index += length
    }

    // MARK: - bytes

    @inline(__always) private mutating func skipWhitespace() {
        while index < count {
            switch byte(index) {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Callers check `position < count` first (an empty body has no base address and count 0).
    @inline(__always) private func byte(_ position: Int) -> UInt8 { base.unsafelyUnwrapped[position] }

    private func slice(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base.map { UnsafeRawPointer($0 + start) }, count: end - start)
    }
}

/// One bit per container open inside a skipped value (set: an array), for up to 512 levels,
/// without a heap allocation.
private struct ContainerKinds {
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    subscript(level: Int) -> Bool {
        get {
            let bit = level & 511
            let word = withUnsafeBytes(of: words) { $0.load(fromByteOffset: (bit >> 6) * 8, as: UInt64.self) }
            return word >> UInt64(bit & 63) & 1 == 1
        }
        set {
            let bit = level & 511
            withUnsafeMutableBytes(of: &words) { raw in
                var word = raw.load(fromByteOffset: (bit >> 6) * 8, as: UInt64.self)
                let mask: UInt64 = 1 << UInt64(bit & 63)
                word = newValue ? word | mask : word & ~mask
                raw.storeBytes(of: word, toByteOffset: (bit >> 6) * 8, as: UInt64.self)
            }
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `name`'s UTF-8: how the answer readers recognise keys.
    @inline(__always) package func isKey(_ name: StaticString) -> Bool {
        count == name.utf8CodeUnitCount && memcmp(baseAddress.unsafelyUnwrapped, name.utf8Start, count) == 0
    }
}
