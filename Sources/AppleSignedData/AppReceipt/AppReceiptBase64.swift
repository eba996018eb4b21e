/// Lenient base64 for stored receipt data: standard or URL-safe alphabet, padding optional,
/// ASCII whitespace ignored; anything else (or `=` before the end) is refused.
enum AppReceiptBase64 {
    private static let invalid: UInt8 = 0xFF
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// The decoded bytes, or nil when `text` is not base64.
    static func decode(_ text: String.UTF8View) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var bits: UInt32 = 0
        var sextets = 0
        var padding = 0
        for byte in text {
            if isWhitespace(byte) { continue }
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = table[Int(byte)]
            guard value != invalid, padding == 0 else { return nil }
            bits = bits << 6 | UInt32(value)
            sextets += 1
            if sextets == 4 {
                output.append(UInt8(truncatingIfNeeded: bits >> 16))
                output.append(UInt8(truncatingIfNeeded: bits >> 8))
                output.append(UInt8(truncatingIfNeeded: bits))
                bits = 0
                sextets = 0
            }
        }
        switch sextets {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            output.append(UInt8(truncatingIfNeeded: bits >> 4))
        case 3:
            guard padding <= 1 else { return nil }
            output.append(UInt8(truncatingIfNeeded: bits >> 10))
            output.append(UInt8(truncatingIfNeeded: bits >> 2))
        default:
            return nil
        }
        return output
    }
}
