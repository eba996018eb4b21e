import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The cursor reads the next keyset page ahead while the current one is handed out; every
/// selected receipt must still come out exactly once, in keyset order, whatever the page size,
/// the limit, and writes moving receipts out of the due selection meanwhile.
@Suite struct ReceiptCursorTests {
    static let nowMs: Int64 = 1_700_000_000_000

    /// 100 receipts; every third is not due yet; due ones have scattered next_due_at values.
    static func database() throws -> (AppDatabase, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-cursor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = try AppDatabase.open(path: folder + "/cursor.sqlite")
        try database.writer.write { db in
            for id in 1...100 {
                let due = id % 3 == 0 ? nowMs + 86_400_000 : nowMs - Int64((id * 7919) % 50) * 1000
                try db.execute(
                    sql: "INSERT INTO receipts (id, user_id, receipt_data, next_due_at) VALUES (?, ?, ?, ?)",
                    arguments: [id, "user-\(id % 10)", "MIIT\(id)", due])
            }
        }
        return (database, folder)
    }

    static func drain(_ cursor: inout ReceiptCursor, whileReading: (ReceiptToVerify) async throws -> Void = { _ in })
        async throws -> [ReceiptToVerify]
    {
        var seen: [ReceiptToVerify] = []
        while let receipt = try await cursor.next() {
            seen.append(receipt)
            try await whileReading(receipt)
        }
        return seen
    }

    @Test(arguments: [1, 2, 7, 33, 66, 67, 512])
    func everyReceiptOnceInKeysetOrder(pageSize: Int) async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var all = ReceiptCursor(store: database, selection: .all, nowMs: Self.nowMs, pageSize: pageSize, limit: nil)
        #expect(try await Self.drain(&all).map(\.id) == Array(1...100))

        let expectedDue = try await database.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM receipts WHERE next_due_at <= ? ORDER BY next_due_at, id", arguments: [Self.nowMs])
        }
        #expect(expectedDue.count == 67)
        var due = ReceiptCursor(store: database, selection: .due, nowMs: Self.nowMs, pageSize: pageSize, limit: nil)
        #expect(try await Self.drain(&due).map(\.id) == expectedDue)

        var user = ReceiptCursor(store: database, selection: .user("user-4"), nowMs: Self.nowMs, pageSize: pageSize, limit: nil)
        #expect(try await Self.drain(&user).map(\.id) == Array(stride(from: 4, through: 100, by: 10)).map(Int64.init))
    }

    @Test(arguments: [(7, 0), (7, 1), (7, 20), (7, 21), (10, 20), (10, 25), (512, 66), (3, 1000)])
    func aLimitStopsExactlyThere(pageSize: Int, limit: Int) async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var cursor = ReceiptCursor(store: database, selection: .all, nowMs: Self.nowMs, pageSize: pageSize, limit: limit)
        #expect(try await Self.drain(&cursor).map(\.id) == Array(Array(1...100).prefix(limit)))
    }

    @Test func receiptsWrittenDuringTheRunAreNeitherSkippedNorReadTwice() async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let expectedDue = try await database.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM receipts WHERE next_due_at <= ? ORDER BY next_due_at, id", arguments: [Self.nowMs])
        }
        var cursor = ReceiptCursor(store: database, selection: .due, nowMs: Self.nowMs, pageSize: 8, limit: nil)
        // As a run does: each receipt handed out is verified and moved past `now` before the next
        // is asked for, while the read-ahead page is already being read.
        let seen = try await Self.drain(&cursor) { receipt in
            try await database.writer.write { db in
                try db.execute(
                    sql: "UPDATE receipts SET next_due_at = ? WHERE id = ?",
                    arguments: [Self.nowMs + 3_600_000, receipt.id])
            }
        }
        #expect(seen.map(\.id) == expectedDue)
    }
}
