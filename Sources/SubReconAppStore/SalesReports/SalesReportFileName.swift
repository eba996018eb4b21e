import SubReconModel

/// The name Apple gives a downloaded daily Summary Sales Report: `S_D_<vendor>_<yyyymmdd>`, with
/// `.txt` or `.tsv` and/or `.gz` after it.
public struct SalesReportFileName: Sendable, Equatable {
    public var vendorNumber: String
    public var day: CalendarDay

    /// nil when the name (its last path component) is not Apple's daily sales report name: a
    /// file renamed by hand is imported on its contents alone.
    public init?(_ path: String) {
        var name = Substring(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        if name.hasSuffix(".txt") || name.hasSuffix(".tsv") { name = name.dropLast(4) }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "S", parts[1] == "D", !parts[2].isEmpty,
            parts[2].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            parts[3].utf8.count == 8
        else { return nil }
        let digits = parts[3]
        let text = "\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.suffix(2))"
        guard let day = CalendarDay(text: text) else { return nil }
        vendorNumber = String(parts[2])
        self.day = day
    }

    /// The error to refuse `path` with when its name says it is another vendor's report; nil when
    /// the vendor matches or the name is not Apple's.
    public static func vendorMismatch(path: String, configuredVendor: String) -> SalesReportError? {
        guard let name = SalesReportFileName(path), name.vendorNumber != configuredVendor else { return nil }
        return SalesReportError(
            file: path, line: 1,
            problem: .otherVendor(fileVendor: name.vendorNumber, configuredVendor: configuredVendor))
    }
}
