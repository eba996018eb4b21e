/// Standard base64 (RFC 4648 alphabet, `=` padding) over raw buffers. Hand-written because the
/// simulator needs what Foundation's `Data` API does not offer: decoding only a prefix of a
/// receipt (the account text, not the ~3 KB filler behind it) and encoding straight into an
/// answer's byte buffer without an intermediate `Data` and `String`.
enum Base64Codec {
    private static let pad = UInt8(ascii: "=")
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// The 6-bit value of each character; `=` maps to 0x40 and anything else outside the
    /// alphabet to 0xFF, so OR-ing all values tells in one pass whether a run is pure alphabet.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        table[Int(pad)] = 0x40
        return table
    }()

    /// Characters needed to encode `byteCount` bytes (padding included).
    static func encodedCount(of byteCount: Int) -> Int {
        (byteCount + 2) / 3 * 4
    }

    /// Two characters per 12-bit value, first character in the low byte: the encoder then does
    /// two lookups and two 16-bit stores per 3 input bytes instead of four of each
    /// (docs/performance.md, "Earlier figures behind the code's choices").
    private static let pairs: [UInt16] = (0..<4096).map {
        UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 0x3F]) << 8
    }

    /// Appends the padded base64 of `input` to `output`.
    static func encode(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: encodedCount(of: input.count)))
        pairs.withUnsafeBufferPointer { pairs in
            output.withUnsafeMutableBytes { out in
                var i = 0
                var o = start
                while i + 3 <= input.count {
                    let bits = Int(input[i]) << 16 | Int(input[i + 1]) << 8 | Int(input[i + 2])
                    out.storeBytes(of: pairs[bits >> 12].littleEndian, toByteOffset: o, as: UInt16.self)
                    out.storeBytes(of: pairs[bits & 0xFFF].littleEndian, toByteOffset: o + 2, as: UInt16.self)
                    i += 3
                    o += 4
                }
                let rest = input.count - i
                guard rest > 0 else { return }
                let bits = Int(input[i]) << 16 | (rest == 2 ? Int(input[i + 1]) << 8 : 0)
                out.storeBytes(of: pairs[bits >> 12].littleEndian, toByteOffset: o, as: UInt16.self)
                out[o + 2] = rest == 2 ? alphabet[bits >> 6 & 0x3F] : pad
                out[o + 3] = pad
            }
        }
    }

    /// How many bytes `text` decodes to, or nil unless it is canonical padded base64: a multiple
    /// of 4 characters, all from the alphabet, at most two `=` and only at the end, and zero in
    /// the bits the padding drops (what every encoder writes).
    static func decodedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return 0 }
        let padding = text[count - 1] != pad ? 0 : text[count - 2] != pad ? 1 : 2
        return sextets.withUnsafeBufferPointer { table -> Int? in
            var seen: UInt8 = 0
            for index in 0..<(count - padding) {
                seen |= table[Int(text[index])]
            }
            guard seen < 0x40 else { return nil }
            let last = table[Int(text[count - padding - 1])]
            guard padding == 0 || last & (padding == 1 ? 0x03 : 0x0F) == 0 else { return nil }
            return count / 4 * 3 - padding
        }
    }

    /// Appends the bytes of the 4-character groups `groups` of `text`.
    /// Precondition: `decodedCount(text)` is not nil.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, groups: Range<Int>, appendingTo output: inout [UInt8]) {
        sextets.withUnsafeBufferPointer { table in
            func value(_ index: Int) -> UInt32 { UInt32(table[Int(text[index])] & 0x3F) }
            for group in groups {
                let i = group * 4
                let bits = value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6 | value(i + 3)
                output.append(UInt8(truncatingIfNeeded: bits >> 16))
                if text[i + 2] != pad { output.append(UInt8(truncatingIfNeeded: bits >> 8)) }
                if text[i + 3] != pad { output.append(UInt8(truncatingIfNeeded: bits)) }
            }
        }
    }
}
