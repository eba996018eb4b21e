import SubReconModel

/// One scalar of a verifyReceipt answer, exactly as it was sent: its JSON kind and its bytes
/// (a string's content between the quotes, a number's text). Turning it into a Swift value is left
/// to the tolerant readings in `LenientDecoding.swift`, so keys the answer carries but subrecon
/// doesn't need, or date strings behind a `_ms` key that is present, cost nothing.
///
/// The bytes point into the body being scanned: a value must not outlive that scan.
package struct ScannedValue {
    package enum Kind: UInt8 {
        /// The key was not sent.
        case absent
        case null
        case `true`
        case `false`
        /// A string without escapes: its bytes are its UTF-8 text.
        case string
        /// A string with at least one backslash escape, still escaped.
        case escapedString
        /// A number without fraction or exponent (`-12`).
        case integer
        /// A number with a fraction or exponent (`1.5`, `1e3`).
        case decimal
        /// An object or an array: skipped, never a usable scalar.
        case container
    }

    package var kind: Kind
    package var bytes: UnsafeRawBufferPointer

    /// (Computed: a stored static of a pointer-holding type would be shared mutable state to Swift 6.)
    package static var absent: ScannedValue { ScannedValue(kind: .absent, bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }

    package init(kind: Kind, bytes: UnsafeRawBufferPointer) {
        self.kind = kind
        self.bytes = bytes
    }

    /// Whether the key was sent at all (`null` counts: Apple's optional keys are tested for presence).
    package var isPresent: Bool { kind != .absent }

    /// The string's text with its escapes resolved. The scanner has validated the escapes and the
    /// UTF-8, so this cannot fail.
    package func unescapedText() -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexQuad(at: index))
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 6 <= bytes.count {
                    // The scanner only lets a high surrogate through when a low one follows.
                    let low = UInt32(hexQuad(at: index + 2))
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { utf8.append($0) }
            default: utf8.append(escape)  // \" \\ \/
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The four hex digits at `offset` (already validated by the scanner).
    private func hexQuad(at offset: Int) -> UInt16 {
        var value: UInt16 = 0
        for index in offset..<min(offset + 4, bytes.count) {
            value = value << 4 | UInt16(OnePassJSONScanner.hexDigitValue(bytes[index]) ?? 0)
        }
        return value
    }

    /// A number's value as a whole Int64, the way Foundation's JSONDecoder read one: an integer
    /// exactly (from -2^63 up); a fraction or exponent through a Double, which must be whole and
    /// below 2^53, where a Double still holds every whole number (so `1.0`, `1e3` and `0.0` count,
    /// `1.5` does not). Nil for anything else, including what is not a number.
    package var wholeNumber: Int64? {
        switch kind {
        case .integer:
            // Accumulated as a negative number so that -2^63 fits.
            let negative = bytes.first == UInt8(ascii: "-")
            var value: Int64 = 0
            for byte in bytes.dropFirst(negative ? 1 : 0) {
                let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
                let (next, overflowB) = shifted.subtractingReportingOverflow(Int64(byte &- 48))
                guard !overflowA, !overflowB else { return nil }
                value = next
            }
            if negative { return value }
            return value == .min ? nil : -value
        case .decimal:
            guard let double = Double(String(decoding: bytes, as: UTF8.self)), double.magnitude < 0x1p53 else { return nil }
            return Int64(exactly: double)
        default:
            return nil
        }
    }
}
