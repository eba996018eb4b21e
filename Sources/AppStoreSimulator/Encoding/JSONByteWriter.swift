/// A minimal streaming JSON writer into a byte buffer. Responses are built with it instead of
/// `JSONSerialization` because it builds no intermediate objects, which makes it much faster
/// (docs/performance.md, "Earlier figures behind the code's choices"), and keeps Apple's key order.
struct JSONByteWriter {
    private(set) var bytes: [UInt8] = []
    /// True when the next value or key in the current container needs a leading comma.
    private var needsComma = false

    init(capacity: Int = 8192) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Keys are `StaticString`s: always literals here, so they need no escape scan, and date
    /// suffixes are appended without building a `String`.
    mutating func key(_ name: StaticString, suffix: StaticString = "") {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        suffix.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    mutating func number(_ value: Int64) {
        separate()
        bytes.appendDecimal(value)
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    mutating func field(_ name: StaticString, number value: Int64) {
        key(name)
        number(value)
    }

    /// A number written as a JSON string, the way Apple sends ids and `_ms` timestamps.
    mutating func field(_ name: StaticString, suffix: StaticString = "", digits value: Int64) {
        key(name, suffix: suffix)
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.appendDecimal(value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Apple's date triple: `name` (Etc/GMT), `name_ms` and `name_pst` (America/Los_Angeles).
    mutating func dateFields(_ name: StaticString, _ ms: Int64) {
        key(name)
        bytes.append(UInt8(ascii: "\""))
        AppleDateFormat.appendUTC(ms, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
        field(name, suffix: "_ms", digits: ms)
        key(name, suffix: "_pst")
        bytes.append(UInt8(ascii: "\""))
        AppleDateFormat.appendPacific(ms, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string value whose bytes `write` appends and which need no escaping (e.g. base64), so
    /// large values skip building a `String` and the escape scan.
    mutating func unescapedString(_ write: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Raw bytes that are already valid JSON for one value (e.g. a pre-rendered string).
    mutating func rawValue(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Fast path (ids, dates, base64): nothing to escape, copy in one go.
            if !utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""):
                    bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"):
                    bytes.append(contentsOf: "\\\\".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default:
                    bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
