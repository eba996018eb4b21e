import SubReconModel

extension AppleReportDay {
    /// `apple_report_days`' values, in `SchemaSQL.appleReportDayInsert`'s order.
    package func dayValues(storedAtMs: Int64) -> [SQLArgument] {
        [
            .text(day.text), .text(vendorNumber), .text(source.rawValue), SQLArgument(fileName), SQLArgument(reportVersion),
            .text(sha256), .integer(Int64(rows.count)), .integer(noSales ? 1 : 0), .integer(storedAtMs),
        ]
    }

    /// `apple_report_rows`' values of each row, in `SchemaSQL.appleReportRowColumns`' order.
    package func rowValues() -> [[SQLArgument]] {
        rows.map { row in
            [
                .text(day.text), .integer(Int64(row.line)), .text(row.sku), .text(row.productTypeIdentifier),
                .integer(row.units), .integer(row.customerPriceMilliunits), .text(row.customerCurrency),
                .text(row.countryCode), .text(row.subscription), .text(row.period),
                SQLArgument(row.developerProceedsMilliunits), .text(row.orderType),
            ]
        }
    }
}
