import SubReconModel

/// The Summary Sales Report columns subrecon reads, found in a header by name through an alias
/// table: Apple's names have drifted between versions and between its reports, and a file is
/// never read by position.
package enum SalesReportColumn: String, CaseIterable, Sendable {
    case beginDate = "Begin Date"
    case endDate = "End Date"
    case sku = "SKU"
    case productTypeIdentifier = "Product Type Identifier"
    case units = "Units"
    case customerPrice = "Customer Price"
    case customerCurrency = "Customer Currency"
    case countryCode = "Country Code"
    case subscription = "Subscription"
    case period = "Period"
    case developerProceeds = "Developer Proceeds"
    case orderType = "Order Type"

    /// The contract's required columns, in the order a missing one is reported.
    package static let required: [SalesReportColumn] = [
        .beginDate, .sku, .productTypeIdentifier, .units, .customerPrice, .customerCurrency, .countryCode,
    ]

    /// Normalised header name → column. Names are compared after ``normalise(_:)``.
    package static let aliases: [String: SalesReportColumn] = {
        var table: [String: SalesReportColumn] = [:]
        for column in allCases { table[normalise(column.rawValue)] = column }
        let extra: [(String, SalesReportColumn)] = [
            ("Start Date", .beginDate),
            ("Product Type", .productTypeIdentifier),
            ("Quantity", .units),
            ("Currency", .customerCurrency),
            ("Country", .countryCode),
            ("Country Of Sale", .countryCode),
            ("Storefront", .countryCode),
            ("Proceeds", .developerProceeds),
        ]
        for (name, column) in extra { table[normalise(name)] = column }
        return table
    }()

    /// Lower case, underscores and runs of white space as one space, trimmed: `Country_Code`,
    /// `country  code` and `Country Code` are one name.
    package static func normalise(_ name: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in name.lowercased() {
            if character == "_" || character.isWhitespace || character == "\u{FEFF}" {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result.append(character)
        }
        return result
    }

    /// Header names (normalised) that mark another of Apple's reports, and what to call it. Checked
    /// before the required columns so that the message names the report the operator downloaded.
    package static let otherReports: [(name: String, report: String)] = [
        ("subscriber id", "a Subscriber Report (SUBSCRIBER/DETAILED)"),
        ("event date", "a Subscriber Report (SUBSCRIBER/DETAILED)"),
        ("event", "a Subscription Event Report (SUBSCRIPTION_EVENT)"),
        ("active standard price subscriptions", "a Subscription Report (SUBSCRIPTION)"),
        ("partner share", "a Financial Report (FINANCIAL)"),
        ("extended partner share", "a Financial Report (FINANCIAL)"),
        ("vendor identifier", "a Financial Report (FINANCIAL)"),
    ]
}
