import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The queries a run repeats per page or per receipt use their indexes (EXPLAIN QUERY PLAN),
/// so a run's cost follows what is due, not how much is stored.
@Suite struct StoreQueryPlanTests {
    func plan(_ sql: String, in database: AppDatabase) async throws -> String {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: " | ")
        }
    }

    @Test func theDuePageWalksTheDueIndexInOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-plan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(path: folder + "/plan.sqlite")

        let due = try await plan(
            """
            SELECT id, user_id, receipt_data, environment, next_due_at FROM receipts
            WHERE next_due_at <= 5 AND (next_due_at > 1 OR (next_due_at = 1 AND id > 2))
            ORDER BY next_due_at, id LIMIT 512
            """, in: database)
        #expect(due.contains("USING INDEX receipts_due"), "\(due)")
        #expect(!due.contains("TEMP B-TREE"), "no sort: the index gives the order (\(due))")

        let count = try await plan("SELECT COUNT(*) FROM receipts WHERE next_due_at <= 5", in: database)
        #expect(count.contains("receipts_due"), "\(count)")

        let subscriptions = try await plan("SELECT * FROM subscriptions WHERE user_id = 'u'", in: database)
        #expect(subscriptions.contains("USING PRIMARY KEY") || subscriptions.contains("USING INDEX"), "\(subscriptions)")

        let renewal = try await plan("SELECT * FROM renewals WHERE user_id = 'u' AND period_key = 'k'", in: database)
        #expect(renewal.contains("USING PRIMARY KEY"), "\(renewal)")

        let user = try await plan("SELECT id FROM receipts WHERE user_id = 'u' AND id > 0 ORDER BY id", in: database)
        #expect(user.contains("receipts_user"), "\(user)")
    }
}
