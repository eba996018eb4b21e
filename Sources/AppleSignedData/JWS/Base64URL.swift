/// Base64url without padding (RFC 4648 §5, RFC 7515 §2): the encoding of every part of a compact
/// JWS and JWT.
///
/// Decoding is strict: only the URL-safe alphabet, no `=`, no whitespace, and the unused low bits
/// of the last character must be zero. So each byte string has exactly one accepted text, and an
/// altered text never decodes to the bytes of the original.
public enum Base64URL {
    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64Alphabet.url.encode(bytes)
    }

    /// The bytes of canonical unpadded base64url `text`, or nil for anything else.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Base64Alphabet.url.decode(Array(text.utf8)[...])
    }

    /// The bytes of canonical unpadded base64url `text` (UTF-8), or nil for anything else.
    public static func decode(utf8 text: ArraySlice<UInt8>) -> [UInt8]? {
        Base64Alphabet.url.decode(text)
    }
}

/// Standard base64 with `=` padding (RFC 4648 §4): the encoding of each certificate in a JWS
/// `x5c` header (RFC 7515 §4.1.6). Decoding is strict in the same way as ``Base64URL``.
public enum Base64 {
    /// The padded base64 text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64Alphabet.standard.encode(bytes)
    }

    /// The bytes of canonical padded base64 `text`, or nil for anything else (base64url included).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Base64Alphabet.standard.decode(Array(text.utf8)[...])
    }
}

/// One RFC 4648 alphabet and its padding rule; shared by ``Base64URL`` and ``Base64``.
struct Base64Alphabet: Sendable {
    static let url = Base64Alphabet(
        characters: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        padded: false
    )
    static let standard = Base64Alphabet(
        characters: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        padded: true
    )

    private static let invalid: UInt8 = 0xFF
    private static let pad = UInt8(ascii: "=")

    private let symbols: [UInt8]
    /// The 6-bit value of each byte, or `invalid`.
    private let values: [UInt8]
    private let padded: Bool

    private init(characters: String, padded: Bool) {
        symbols = Array(characters.utf8)
        var values = [UInt8](repeating: Self.invalid, count: 256)
        for (value, symbol) in symbols.enumerated() {
            values[Int(symbol)] = UInt8(value)
        }
        self.values = values
        self.padded = padded
    }

    func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let bits = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(symbols[Int(bits >> 18 & 0x3F)])
            output.append(symbols[Int(bits >> 12 & 0x3F)])
            output.append(symbols[Int(bits >> 6 & 0x3F)])
            output.append(symbols[Int(bits & 0x3F)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let bits = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            output.append(symbols[Int(bits >> 18 & 0x3F)])
            output.append(symbols[Int(bits >> 12 & 0x3F)])
            if rest == 2 {
                output.append(symbols[Int(bits >> 6 & 0x3F)])
            }
            if padded {
                output.append(contentsOf: repeatElement(Self.pad, count: 3 - rest))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var body = text
        if padded {
            guard text.count % 4 == 0 else { return nil }
            var padding = 0
            while padding < 2, body.last == Self.pad {
                body.removeLast()
                padding += 1
            }
        }
        let count = body.count
        let tail = count % 4
        // A final group of one character cannot carry a whole byte.
        guard tail != 1 else { return nil }
        let outputCount = count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
        // Four characters at a time through unsafe buffers: the JWS payloads of one notification
        // are large, and a character-by-character loop with checked appends showed in the
        // receiver's profile (docs/performance.md, "Notifications receiver"). `invalid` (0xFF) has
        // the top bits no 6-bit value has, so one OR of every looked-up value tells whether any
        // character was outside the alphabet.
        var seen: UInt8 = 0
        var leftoverBits: UInt32 = 0
        let output = values.withUnsafeBufferPointer { table in
            body.withUnsafeBufferPointer { input in
                [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
                    var i = 0
                    var o = 0
                    while i + 4 <= count {
                        let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                        let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                        seen |= a | b | c | d
                        let bits = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        out[o] = UInt8(truncatingIfNeeded: bits >> 16)
                        out[o + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                        out[o + 2] = UInt8(truncatingIfNeeded: bits)
                        i += 4
                        o += 3
                    }
                    if tail >= 2 {
                        let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                        let c = tail == 3 ? table[Int(input[i + 2])] : 0
                        seen |= a | b | c
                        let bits = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                        out[o] = UInt8(truncatingIfNeeded: bits >> 16)
                        if tail == 3 { out[o + 1] = UInt8(truncatingIfNeeded: bits >> 8) }
                        // The bits below the last whole byte.
                        leftoverBits = tail == 3 ? bits & 0xFF : bits & 0xFFFF
                    }
                    initialized = outputCount
                }
            }
        }
        // Only the alphabet, and canonical form only: the bits left over after the last whole byte are zero.
        guard seen & 0xC0 == 0, leftoverBits == 0 else { return nil }
        return output
    }
}
