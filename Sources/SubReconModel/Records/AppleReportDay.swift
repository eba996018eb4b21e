/// One Pacific-time day of Apple's Summary Sales Report, as `apple-reports fetch|import` stores it:
/// the day replaces whatever was stored for it, in one transaction (Apple reissues reports).
public struct AppleReportDay: Sendable {
    /// Where the day came from.
    public enum Source: String, Sendable {
        case fetch, `import`
    }

    public var day: CalendarDay
    public var vendorNumber: String
    public var source: Source
    /// The file's name without its folder (an import), nil for a download.
    public var fileName: String?
    /// The report version Apple served (a download).
    public var reportVersion: String?
    /// SHA-256 of the report's bytes as received (hex): a reissue differs, the same file again does not.
    public var sha256: String
    /// Apple had no sales that day ("There were no sales for the date specified."): a day
    /// compared with nothing on Apple's side, unlike a day not yet published.
    public var noSales: Bool
    public var rows: [SalesReportRow]

    public init(
        day: CalendarDay, vendorNumber: String, source: Source, fileName: String?, reportVersion: String?, sha256: String,
        noSales: Bool, rows: [SalesReportRow]
    ) {
        self.day = day
        self.vendorNumber = vendorNumber
        self.source = source
        self.fileName = fileName
        self.reportVersion = reportVersion
        self.sha256 = sha256
        self.noSales = noSales
        self.rows = rows
    }
}

/// What storing a day did.
public enum AppleReportStoreResult: Sendable, Equatable {
    /// The day was not stored before.
    case new
    /// An earlier copy was replaced; `changed` when its bytes differed (Apple reissued it).
    case replaced(changed: Bool)
}
