/// Writing JSON text for the headers and claims we sign. The package's one JSON string quoting:
/// the application's JSON log lines use it too.
package enum JSONText {
    /// `text` as a JSON string literal, quotes included (RFC 8259 §7): `"`, `\\` and the control
    /// characters escaped (`\n`, `\r`, `\t`, else `\u00xx`), everything else as it is.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
