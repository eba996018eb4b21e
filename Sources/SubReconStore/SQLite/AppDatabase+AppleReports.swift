import GRDB
import SubReconModel

extension AppDatabase: AppleReportStore {
    public func storeAppleReport(_ report: AppleReportDay, nowMs: Int64) async throws(StoreError) -> AppleReportStoreResult {
        try await write("storing Apple's report of \(report.day.text)") { db in
            let day = report.day.text
            let previous = try String.fetchOne(db, sql: SchemaSQL.appleReportDaySHA, arguments: [day])
            try db.execute(sql: SchemaSQL.appleReportRowsDelete, arguments: [day])
            try db.execute(sql: SchemaSQL.appleReportDayDelete, arguments: [day])
            let insertDay = try DirectStatement(db, sql: SchemaSQL.appleReportDayInsert)
            try insertDay.run(values: report.dayValues(storedAtMs: nowMs))
            let columns = SchemaSQL.appleReportRowColumns
            let insertRow = try DirectStatement(
                db,
                sql: "INSERT INTO apple_report_rows (\(columns.joined(separator: ", "))) VALUES ("
                    + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
            for values in report.rowValues() { try insertRow.run(values: values) }
            return previous.map { .replaced(changed: $0 != report.sha256) } ?? .new
        }
    }
}
