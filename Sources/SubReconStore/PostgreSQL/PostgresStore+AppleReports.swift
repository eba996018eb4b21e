import PostgresNIO
import SubReconModel

extension PostgresStore: AppleReportStore {
    /// One transaction; several workers storing the same day at once take turns on its row.
    public func storeAppleReport(_ report: AppleReportDay, nowMs: Int64) async throws(StoreError) -> AppleReportStoreResult {
        let day = report.day.text
        let dayValues = report.dayValues(storedAtMs: nowMs)
        let rows = report.rowValues()
        let sha256 = report.sha256
        return try await withTransaction("storing Apple's report of \(day)") { connection in
            var previous: String?
            for try await row in try await connection.run(SchemaSQL.appleReportDaySHA + " FOR UPDATE", [.text(day)]) {
                previous = try row.makeRandomAccess()[0].decode(String.self)
            }
            try await connection.run(SchemaSQL.appleReportRowsDelete, [.text(day)])
            try await connection.run(SchemaSQL.appleReportDayDelete, [.text(day)])
            try await connection.run(SchemaSQL.appleReportDayInsert, dayValues)
            let columns = SchemaSQL.appleReportRowColumns
            let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            // A few hundred rows per statement: a day's report is one or two round trips.
            for start in stride(from: 0, to: rows.count, by: Self.appleReportRowsPerStatement) {
                let chunk = rows[start..<min(start + Self.appleReportRowsPerStatement, rows.count)]
                try await connection.run(
                    "INSERT INTO apple_report_rows (\(columns.joined(separator: ", "))) VALUES "
                        + Array(repeating: tuple, count: chunk.count).joined(separator: ", "),
                    chunk.flatMap { $0 })
            }
            return previous.map { .replaced(changed: $0 != sha256) } ?? .new
        }
    }

    package static let appleReportRowsPerStatement = 400
}
