/// A JSON value read by ``StrictJSON``. Numbers keep their text: the verifier only needs to know
/// whether one is an integer that fits in `Int64`.
package enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// The value as an `Int64` if it is a JSON integer (no fraction, no exponent) in range.
    package var int64Value: Int64? {
        guard case .number(let text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return nil
        }
        return Int64(text)
    }

    package var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}

/// Why ``StrictJSON`` refused a text.
package enum JSONReadError: Error, Equatable, Sendable {
    /// An object names the same member twice (RFC 7515 §4 requires rejecting this in a JOSE header).
    case duplicateKey(String)
    /// Not RFC 8259 JSON at this byte offset (or invalid UTF-8, or content after the value).
    case malformed(offset: Int)
    /// Arrays and objects nested deeper than ``StrictJSON/maximumDepth``.
    case tooDeep
}

/// A small RFC 8259 reader for JWS headers and payloads. Stricter than `JSONSerialization`: a
/// duplicate member name is an error instead of a silent choice, strings must be valid UTF-8 and
/// nesting is bounded so hostile input cannot exhaust the stack.
package struct StrictJSON {
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var offset = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The single JSON value making up `bytes` (surrounding whitespace allowed).
    package static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        var reader = StrictJSON(bytes)
        let value = try reader.readValue()
        reader.skipWhitespace()
        guard reader.offset == bytes.count else { throw .malformed(offset: reader.offset) }
        return value
    }

    /// The members of the JSON object making up `bytes`; a duplicate member and anything else
    /// (malformed text, another kind of value) become the caller's errors.
    static func object<Failure: Error>(
        _ bytes: [UInt8],
        duplicate: (String) -> Failure,
        notObject: Failure
    ) throws(Failure) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try parse(bytes)
        } catch .duplicateKey(let key) {
            throw duplicate(key)
        } catch {
            throw notObject
        }
        guard case .object(let members) = value else { throw notObject }
        return members
    }

    /// The value of the top-level member `name` of the JSON object making up `bytes`, or nil when
    /// it has none. The whole text is validated exactly as `object` does (duplicates at any level
    /// refused), but no other value is built: a signed payload is read for its `signedDate` only,
    /// and building every member was the verifier's largest cost after the signature itself.
    static func member<Failure: Error>(
        _ name: String,
        of bytes: [UInt8],
        duplicate: (String) -> Failure,
        notObject: Failure
    ) throws(Failure) -> JSONValue? {
        var reader = StrictJSON(bytes)
        do {
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: "{") else { throw notObject }
            let found = try reader.skipObject(keeping: name)
            reader.skipWhitespace()
            guard reader.offset == bytes.count else { throw notObject }
            return found
        } catch let error as Failure {
            throw error
        } catch JSONReadError.duplicateKey(let key) {
            throw duplicate(key)
        } catch {
            throw notObject
        }
    }

    private var current: UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    /// Validates an object (the reader is at its `{`) without building it, refusing duplicate
    /// member names; returns the built value of member `kept`, if any.
    private mutating func skipObject(keeping kept: String? = nil) throws(JSONReadError) -> JSONValue? {
        try enterContainer()
        defer { depth -= 1 }
        // Duplicates are found without making Strings while every key is plain ASCII (Apple's
        // ~20 per payload): byte equality is then String equality. The first other key (escapes,
        // non-ASCII: Swift compares those by canonical equivalence) or a large object moves
        // every key into a Set<String>, exactly as before.
        var plainKeys: [Range<Int>] = []
        var keys: Set<String>?
        var found: JSONValue?
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return nil
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw .malformed(offset: offset) }
            let isKept: Bool
            if keys == nil, let range = skipPlainASCIIString() {
                for previous in plainKeys where previous.count == range.count && bytes[previous].elementsEqual(bytes[range]) {
                    throw .duplicateKey(String(decoding: bytes[range], as: UTF8.self))
                }
                plainKeys.append(range)
                if plainKeys.count > Self.plainKeyLimit {
                    keys = Set(plainKeys.map { String(decoding: bytes[$0], as: UTF8.self) })
                }
                isKept = kept.map { bytes[range].elementsEqual($0.utf8) } ?? false
            } else {
                let key = try readString()
                var set = keys ?? Set(plainKeys.map { String(decoding: bytes[$0], as: UTF8.self) })
                keys = nil  // one reference: the insert below must not copy the set
                guard set.insert(key).inserted else { throw .duplicateKey(key) }
                keys = set
                isKept = key == kept
            }
            skipWhitespace()
            try expect(":")
            if isKept {
                found = try readValue()
            } else {
                try skipValue()
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return found
            default: throw .malformed(offset: offset)
            }
        }
    }

    /// Objects with more keys than this compare them through a Set (linear, not quadratic).
    private static let plainKeyLimit = 32

    /// The reader is at a string's opening quote: when the string is plain ASCII (no escape, no
    /// control character), moves past its closing quote and returns the range of its content;
    /// otherwise moves nothing and returns nil (`readString` then reads or refuses it).
    private mutating func skipPlainASCIIString() -> Range<Int>? {
        let start = offset + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                offset = end + 1
                return start..<end
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        return nil
    }

    /// Validates one value without building it.
    private mutating func skipValue() throws(JSONReadError) {
        skipWhitespace()
        guard let byte = current else { throw .malformed(offset: offset) }
        switch byte {
        case UInt8(ascii: "{"): _ = try skipObject()
        case UInt8(ascii: "["):
            try enterContainer()
            defer { depth -= 1 }
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                offset += 1
                return
            }
            while true {
                try skipValue()
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "]"):
                    offset += 1
                    return
                default: throw .malformed(offset: offset)
                }
            }
        case UInt8(ascii: "\""): try skipString()
        default: _ = try readValue()  // literals and numbers: small, built as before
        }
    }

    /// A string's syntax and UTF-8 checked; a String is made only when it holds escapes or
    /// non-ASCII bytes (then exactly as `readString` does).
    private mutating func skipString() throws(JSONReadError) {
        let start = offset
        offset += 1
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte < 0x80 {
            guard byte >= 0x20 else { throw .malformed(offset: offset) }
            offset += 1
        }
        if current == UInt8(ascii: "\"") {
            offset += 1
            return
        }
        offset = start
        _ = try readString()
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            offset += 1
        }
    }

    private mutating func expect(_ literal: StaticString) throws(JSONReadError) {
        let start = offset
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard current == expected else { throw .malformed(offset: start) }
            offset += 1
        }
    }

    private mutating func readValue() throws(JSONReadError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw .malformed(offset: offset) }
        switch byte {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try readNumber())
        default:
            throw .malformed(offset: offset)
        }
    }

    private mutating func enterContainer() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        offset += 1
    }

    private mutating func readObject() throws(JSONReadError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw .malformed(offset: offset) }
            let key = try readString()
            skipWhitespace()
            try expect(":")
            let value = try readValue()
            guard members.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key) }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            default: throw .malformed(offset: offset)
            }
        }
    }

    private mutating func readArray() throws(JSONReadError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            elements.append(try readValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            default: throw .malformed(offset: offset)
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`, returned as text.
    private mutating func readNumber() throws(JSONReadError) -> String {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        if current == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard try skipDigits() > 0 else { throw .malformed(offset: offset) }
        }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard try skipDigits() > 0 else { throw .malformed(offset: offset) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard try skipDigits() > 0 else { throw .malformed(offset: offset) }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func skipDigits() throws(JSONReadError) -> Int {
        let start = offset
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            offset += 1
        }
        return offset - start
    }

    private mutating func readString() throws(JSONReadError) -> String {
        offset += 1  // opening quote
        let start = offset
        // Fast path: no escapes, the common case for every field Apple sends.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw .malformed(offset: offset) }
            offset += 1
        }
        guard let stop = current else { throw .malformed(offset: offset) }
        var utf8 = Array(bytes[start..<offset])
        if stop == UInt8(ascii: "\\") {
            try readEscapedRest(into: &utf8)
        }
        offset += 1  // closing quote
        guard let text = String(validating: utf8, as: UTF8.self) else { throw .malformed(offset: start) }
        return text
    }

    /// Continues a string from its first backslash up to (not past) the closing quote.
    private mutating func readEscapedRest(into utf8: inout [UInt8]) throws(JSONReadError) {
        while let byte = current, byte != UInt8(ascii: "\"") {
            guard byte >= 0x20 else { throw .malformed(offset: offset) }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                offset += 1
                continue
            }
            offset += 1
            guard let escaped = current else { throw .malformed(offset: offset) }
            offset += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"): utf8.append(contentsOf: try readUnicodeEscape())
            default: throw .malformed(offset: offset - 1)
            }
        }
        guard current != nil else { throw .malformed(offset: offset) }
    }

    /// The UTF-8 of a `\uXXXX` escape (the `\u` already read), pairing surrogates.
    private mutating func readUnicodeEscape() throws(JSONReadError) -> [UInt8] {
        let start = offset
        var scalarValue = try readHex4()
        if (0xD800...0xDBFF).contains(scalarValue) {
            guard current == UInt8(ascii: "\\") else { throw .malformed(offset: start) }
            offset += 1
            guard current == UInt8(ascii: "u") else { throw .malformed(offset: start) }
            offset += 1
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw .malformed(offset: start) }
            scalarValue = 0x10000 + (scalarValue - 0xD800) << 10 + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw .malformed(offset: start) }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func readHex4() throws(JSONReadError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else { throw .malformed(offset: offset) }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
