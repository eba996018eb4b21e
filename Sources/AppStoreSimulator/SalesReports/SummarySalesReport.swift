/// The text of one daily Summary Sales Report (`SALES`/`SUMMARY`/`DAILY`, version 1_0): a header
/// of Apple's 28 columns in Apple's order, then one tab-separated row per aggregated line, `\n`
/// line ends, and an empty cell written as Apple writes it (one space).
struct SummarySalesReport: Sendable {
    /// The header, in Apple's order.
    static let columns = SummarySalesReportHeader.columns

    /// The simulated app's seller name.
    static let developer = "Example Developer"
    /// The simulated app's SKU (the in-app purchases' Parent Identifier).
    static let appSKU = "subrecon.app"

    let day: PacificDay
    /// Aggregated lines with their summed units, in file order.
    let rows: [(row: SalesReportRow, units: Int64)]

    /// The file's bytes (before gzip).
    var text: String {
        var lines = [Self.columns.joined(separator: "\t")]
        let date = day.usDate
        let empty = " "
        for (row, units) in rows {
            let cells = [
                "APPLE", "US", row.productID, Self.developer, Self.title(of: row.productID), empty, "IAY", String(units),
                SalesReportRow.decimal(row.developerProceedsMilliunits, digits: row.minorDigits), date, date,
                row.currency, row.countryCode, row.currency, String(Self.appleIdentifier(of: row.productID)),
                SalesReportRow.decimal(row.customerPriceMilliunits, digits: row.minorDigits), empty, Self.appSKU,
                row.subscription, row.period, "Productivity", empty, "iPhone", "iOS", empty, empty, empty, empty,
            ]
            lines.append(cells.joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The in-app purchase's display name (Apple's Title; not a key anyone should match on).
    static func title(of productID: String) -> String {
        switch productID {
        case SimulatedProducts.proWeekly: "Pro (Weekly)"
        case SimulatedProducts.proMonthly: "Pro (Monthly)"
        case SimulatedProducts.proYearly: "Pro (Yearly)"
        case SimulatedProducts.premiumMonthly: "Premium (Monthly)"
        case SimulatedProducts.newsMonthly: "News (Monthly)"
        default: productID
        }
    }

    /// The in-app purchase's Apple ID: a stable ten-digit number derived from the product id.
    static func appleIdentifier(of productID: String) -> Int64 {
        var hash = FNV1a64()
        hash.add(productID)
        return 1_500_000_000 + Int64(hash.value % 500_000_000)
    }
}

/// Apple's 28 columns of a Summary Sales Report, in Apple's order (the simulator's reports, and
/// the benchmark's generated ones).
public enum SummarySalesReportHeader {
    public static let columns = [
        "Provider", "Provider Country", "SKU", "Developer", "Title", "Version", "Product Type Identifier", "Units",
        "Developer Proceeds", "Begin Date", "End Date", "Customer Currency", "Country Code", "Currency of Proceeds",
        "Apple Identifier", "Customer Price", "Promo Code", "Parent Identifier", "Subscription", "Period",
        "Category", "CMB", "Device", "Supported Platforms", "Proceeds Reason", "Preserved Pricing", "Client",
        "Order Type",
    ]
}
