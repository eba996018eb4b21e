import SubReconModel

/// Apple's stored Summary Sales Reports, as `report apple-parity` and `apple-reports fetch` read
/// them: the statements of `SchemaSQL` that read them, with their bindings and columns.
extension SnapshotQuerying {
    /// The days stored in `[since, until)`, oldest first (every stored day when both are nil).
    public func appleReportDays(since: CalendarDay?, until: CalendarDay?) async throws -> [StoredAppleReportDay] {
        try await all(SchemaSQL.appleReportDays, Self.appleReportBounds(since: since, until: until)) {
            try StoredAppleReportDay($0)
        }
    }

    /// Each stored report row of `[since, until)` with its day, by day and Apple's line order
    /// (the fields parity compares; `line` is 0).
    public func forEachAppleReportRow(
        since: CalendarDay?, until: CalendarDay?, _ body: (CalendarDay, SalesReportRow) throws -> Void
    ) async throws {
        try await forEachRow(SchemaSQL.appleReportRows, Self.appleReportBounds(since: since, until: until)) { row in
            let text = try row.requiredText("day")
            guard let day = CalendarDay(text: text) else {
                throw StoreError.failed(operation: "reading Apple's report rows", reason: "day \(text) is not a date")
            }
            try body(
                day,
                SalesReportRow(
                    line: 0, sku: try row.requiredText("product_id"), productTypeIdentifier: try row.requiredText("product_type"),
                    units: try row.requiredInteger("units"),
                    customerPriceMilliunits: try row.requiredInteger("customer_price_milliunits"),
                    customerCurrency: try row.requiredText("currency"), countryCode: try row.requiredText("country")))
        }
    }

    /// `[since, until)` as the queries' two parameters; nil reaches every day (dates compare as text).
    private static func appleReportBounds(since: CalendarDay?, until: CalendarDay?) -> [SQLArgument] {
        [.text(since?.text ?? "0000-00-00"), .text(until?.text ?? "9999-99-99")]
    }
}
