
/// Text helpers for the dashboard page: escaping, identifiers and numbers written the same on every machine.
enum DashboardHTML {
    /// Escapes text for HTML content and quoted attributes alike (user ids, product ids and labels can
    /// hold `<`, `&` or quotes).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // Control characters other than tab and newline are not allowed in HTML text.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A fragment usable in an `id` attribute: ASCII letters and digits kept, anything else `-`.
    static func identifier(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
                ? Character(scalar) : "-"
        })
    }

    /// An SVG coordinate with one decimal, without locale or `-0`: golden files need identical bytes.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int((value * 10).rounded())
        if tenths % 10 == 0 { return String(tenths / 10) }
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// An axis tick: compact (`1.5k`, `12M`) so that huge amounts keep the axis narrow; `decimals`
    /// follows the tick step so neighbouring ticks read differently.
    static func tick(_ value: Double, step: Double) -> String {
        // Zero reads as "0" whatever the unit of its neighbours.
        if abs(value) < abs(step) / 2 { return "0" }
        let units: [(Double, String)] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")]
        var divisor = 1.0
        var suffix = ""
        // The suffix follows the step, not the value, so every tick of one axis shares it.
        for (size, name) in units where step >= size {
            divisor = size
            suffix = name
            break
        }
        let scaledStep = step / divisor
        var decimals = 0
        while decimals < 6 {
            let shifted = scaledStep * pow10(decimals)
            if abs(shifted - shifted.rounded()) < 1e-6 * max(1, shifted) { break }
            decimals += 1
        }
        return fixed(value / divisor, decimals: decimals) + suffix
    }

    /// A rate as the CSV writes it (`0.0500`, `churn_rate`) as a percentage (`5.00%`), by moving the
    /// decimal point: exact, no floating point. Empty stays empty (no rate).
    static func percent(fromRate rate: String) -> String {
        guard !rate.isEmpty else { return "" }
        let negative = rate.hasPrefix("-")
        let unsigned = negative ? String(rate.dropFirst()) : rate
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        let padded = fraction.count < 2 ? fraction + String(repeating: "0", count: 2 - fraction.count) : fraction
        var whole = String(parts[0]) + padded.prefix(2)
        while whole.count > 1, whole.hasPrefix("0") { whole.removeFirst() }
        let decimals = padded.dropFirst(2)
        return (negative ? "-" : "") + whole + (decimals.isEmpty ? "" : "." + decimals) + "%"
    }

    /// `value` with exactly `decimals` digits after the point, never `-0`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        let scale = pow10(decimals)
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else { return value < 0 ? "-∞" : "∞" }
        let integer = Int(scaled)
        if integer == 0 { return decimals == 0 ? "0" : "0." + String(repeating: "0", count: decimals) }
        let sign = integer < 0 ? "-" : ""
        let digits = String(integer.magnitude)
        guard decimals > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        return sign + padded.dropLast(decimals) + "." + padded.suffix(decimals)
    }

    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}
