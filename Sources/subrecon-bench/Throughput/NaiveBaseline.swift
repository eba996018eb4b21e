import Foundation
import GRDB
import SubReconHTTP
import SubReconStore

/// The usual hand-written nightly PHP job, for comparison: every receipt, every night, one at a
/// time; a new HTTP connection per request (`curl_init` per call: here a fresh one-connection
/// libcurl client each time); the whole answer parsed into dictionaries (`json_decode`), 21007
/// resent to the sandbox; one autocommit `UPDATE` per receipt in a database of its own (SQLite's
/// defaults: rollback journal, `synchronous=FULL`).
struct NaiveBaseline {
    var productionURL: String
    var sandboxURL: String
    var secret: String

    struct Result {
        var receipts: Int
        var seconds: Double
        var cpuSeconds: Double
        var appleCalls: Int
        var failures: Int

        var receiptsPerSecond: Double { seconds > 0 ? Double(receipts) / seconds : 0 }
    }

    /// Creates the baseline's own database with `rows`.
    static func makeDatabase(path: String, rows: [ReceiptRow]) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: BenchmarkSQL.naiveTable)
            for row in rows {
                try db.execute(
                    sql: BenchmarkSQL.naiveInsert,
                    arguments: [row.userID, row.receiptData])
            }
        }
    }

    func run(databasePath: String) async throws -> Result {
        let queue = try DatabaseQueue(path: databasePath)
        let receipts = try await queue.read { db in
            try Row.fetchAll(db, sql: BenchmarkSQL.naiveReceipts)
                .map { (id: $0["id"] as Int64, data: $0["receipt_data"] as String) }
        }
        let cpuBefore = ChildProcess.ownCPUSeconds()
        let watch = Stopwatch()
        var calls = 0
        var failures = 0
        for receipt in receipts {
            let body = try JSONSerialization.data(withJSONObject: [
                "receipt-data": receipt.data, "password": secret, "exclude-old-transactions": true,
            ])
            calls += 1
            var answer = try await post(body, to: productionURL)
            if (answer?["status"] as? Int) == 21007 {
                calls += 1
                answer = try await post(body, to: sandboxURL)
            }
            guard let answer, let status = answer["status"] as? Int else {
                failures += 1
                continue
            }
            let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
            var newest: [String: Any]?
            var newestExpiry: Int64 = .min
            for entry in answer["latest_receipt_info"] as? [[String: Any]] ?? [] {
                let expiry = Int64(entry["expires_date_ms"] as? String ?? "") ?? .min
                if expiry > newestExpiry {
                    newestExpiry = expiry
                    newest = entry
                }
            }
            var state: String?
            if let newest {
                state = newest["cancellation_date_ms"] != nil ? "refunded" : (newestExpiry > nowMs ? "active" : "expired")
            }
            // One autocommit statement, as a PHP job's `$pdo->exec()` would do.
            let arguments: StatementArguments = [
                answer["latest_receipt"] as? String, state, newest == nil ? nil : newestExpiry, status, nowMs, receipt.id,
            ]
            try await queue.writeWithoutTransaction { db in
                try db.execute(
                    sql: BenchmarkSQL.naiveUpdate,
                    arguments: arguments)
            }
        }
        return Result(
            receipts: receipts.count, seconds: watch.seconds, cpuSeconds: ChildProcess.ownCPUSeconds() - cpuBefore,
            appleCalls: calls, failures: failures)
    }

    /// One POST on a brand-new connection; the answer parsed whole, or nil on any failure.
    private func post(_ body: Data, to url: String) async throws -> [String: Any]? {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let request = HTTPRequest(
            url: url, headers: [("Content-Type", "application/json")], body: [UInt8](body), timeout: .seconds(30))
        guard let response = try? await transport.send(request), response.status == 200 else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    }
}
