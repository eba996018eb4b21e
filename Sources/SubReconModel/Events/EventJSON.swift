/// The few JSON shapes an event body needs, written by hand so that the key order is the
/// contract's and the bytes are the same on every rendering (Foundation's encoder orders keys
/// only alphabetically).
public enum EventJSON: Sendable, Equatable {
    case null
    case integer(Int64)
    case boolean(Bool)
    case string(String)
    /// Members in the order they are written.
    case object([(String, EventJSON)])

    public static func == (a: EventJSON, b: EventJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.integer(let x), .integer(let y)): x == y
        case (.boolean(let x), .boolean(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public static func optional(_ value: String?) -> EventJSON { value.map(EventJSON.string) ?? .null }
    public static func optional(_ value: Int64?) -> EventJSON { value.map(EventJSON.integer) ?? .null }

    /// Compact JSON text (no spaces), UTF-8 left as is, control characters escaped.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .integer(let value): out += String(value)
        case .boolean(let value): out += value ? "true" : "false"
        case .string(let value): Self.writeString(value, to: &out)
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        // Nearly every value (ids, dates, product ids) needs no escape: copied whole. 0xE2 starts
        // U+2028 and U+2029, which are escaped too.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0xE2 }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
