import Foundation

/// Number formatting for the printed figures, in one place.
enum BenchFormat {
    static func fixed(_ value: Double, _ digits: Int = 2) -> String {
        String(format: "%.\(digits)f", value)
    }

    static func megabytes(bytes: Int64) -> String {
        fixed(Double(bytes) / 1_048_576, 1) + " MB"
    }

    static func megabytes(kilobytes: Int) -> String {
        fixed(Double(kilobytes) / 1024, 1) + " MB"
    }

    /// `label` padded to the figure column.
    static func line(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 20, withPad: " ", startingAt: 0) + value
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0, index % 3 == 0, character != "-" { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }
}
