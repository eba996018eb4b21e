import SubReconModel

/// Why a sales report file was refused: `FILE:LINE: reason` (line 1 is the header; problems with
/// the file as a whole, such as a corrupt gzip, are reported on line 1). Nothing from a refused
/// file is stored.
public struct SalesReportError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var problem: SalesReportProblem

    public init(file: String, line: Int, problem: SalesReportProblem) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String { "\(file):\(line): \(problem)" }
}

/// What is wrong with a sales report file, as one operator-facing sentence.
public enum SalesReportProblem: Equatable, Sendable, CustomStringConvertible {
    case corruptGzip
    case tooLarge(limitBytes: Int)
    case notUTF8
    case empty
    /// `looksLike` names the report the header resembles ("a Subscriber Report"), when known.
    case notSummarySalesReport(looksLike: String?)
    case missingColumn(String)
    case noRows
    case blankLine
    case tooFewCells(expected: Int, found: Int)
    case emptyCell(column: String)
    case badNumber(column: String, value: String)
    case fractionalUnits(value: String)
    case badDate(column: String, value: String)
    case beginEndDiffer(begin: String, end: String)
    case mixedDates(reportDay: String, rowDay: String)
    case badCurrency(String)
    case badCountry(String)
    case otherVendor(fileVendor: String, configuredVendor: String)

    public var description: String {
        switch self {
        case .corruptGzip:
            "the gzip data is truncated or corrupt: download the report again"
        case .tooLarge(let limit):
            "the report inflates to more than \(limit) bytes, far beyond any daily Summary Sales Report: refused"
        case .notUTF8:
            "the file is not UTF-8 text"
        case .empty:
            "the file is empty: a Summary Sales Report has a header line and at least one row"
        case .notSummarySalesReport(let looksLike?):
            "not a Summary Sales Report (SALES/SUMMARY): the header looks like \(looksLike)"
        case .notSummarySalesReport(nil):
            "not a Summary Sales Report (SALES/SUMMARY): the header has none of its columns"
        case .missingColumn(let column):
            "the required column \"\(column)\" is missing from the header"
        case .noRows:
            "the report has a header but no rows, so its day is unknown"
        case .blankLine:
            "an empty line inside the report (only trailing empty lines are allowed)"
        case .tooFewCells(let expected, let found):
            "the row has \(found) cells where the header has \(expected)"
        case .emptyCell(let column):
            "\"\(column)\" is empty"
        case .badNumber(let column, let value):
            "\"\(column)\" is \"\(value.prefix(64))\", not a decimal number with at most 3 decimals"
        case .fractionalUnits(let value):
            "\"Units\" is \"\(value.prefix(64))\", not a whole number"
        case .badDate(let column, let value):
            "\"\(column)\" is \"\(value.prefix(64))\", not a date (MM/DD/YYYY)"
        case .beginEndDiffer(let begin, let end):
            "Begin Date \(begin) and End Date \(end) differ: not a daily report"
        case .mixedDates(let reportDay, let rowDay):
            "the row is dated \(rowDay) but the report's first row \(reportDay): a daily report covers one day"
        case .badCurrency(let value):
            "\"Customer Currency\" is \"\(value.prefix(64))\", not an ISO 4217 code (3 upper-case letters)"
        case .badCountry(let value):
            "\"Country Code\" is \"\(value.prefix(64))\", not an ISO 3166-1 alpha-2 code (2 upper-case letters)"
        case .otherVendor(let fileVendor, let configuredVendor):
            "the file belongs to vendor number \(fileVendor), but the configured vendor number is "
                + "\(configuredVendor) (SUBRECON_VENDOR_NUMBER): a report of another account"
        }
    }
}
