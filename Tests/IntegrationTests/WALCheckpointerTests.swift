import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// The receiver's SQLite store checkpoints its WAL on a connection of its own, not in the commit
/// that crosses the threshold: what is committed reaches the database file without any commit
/// doing it, and the WAL stays bounded.
@Suite struct WALCheckpointerTests {
    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// ~2 MB of receipts in one commit (far below the writer's own 4,000-page threshold).
    static func importLargeReceipts(_ database: AppDatabase) async throws {
        let rows = (0..<400).map { index in
            ImportRow(line: index + 2, userID: "user-\(index)", receiptData: String(repeating: "A", count: 5_000) + "\(index)")
        }
        _ = try await database.importReceipts(rows, nowMs: 1_795_329_964_000)
    }

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-wal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func committedPagesReachTheDatabaseFileWithoutACommitCheckpointing() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/receiver.sqlite"
        let database = try AppDatabase.open(path: path, checkpointsOffTheWriter: true)
        let before = Self.fileSize(path)
        try await Self.importLargeReceipts(database)
        var grown = false
        for _ in 0..<200 where !grown {  // up to 20 s on a busy machine; a pass comes every 0.5 s
            try await Task.sleep(for: .milliseconds(100))
            grown = Self.fileSize(path) > before + 1_000_000
        }
        #expect(grown, "the database file stayed at \(Self.fileSize(path)) bytes")
        await database.close()
        // Stopped: the data is all there for the next open.
        let reopened = try AppDatabase.open(path: path)
        let count = try await reopened.withReadSnapshot { db in try await db.integer("SELECT (SELECT COUNT(*) FROM receipts) AS value") }
        #expect(count == 400)
    }

    /// Without it (a run's store), the same commit stays in the WAL until the writer's threshold.
    @Test func theRunsStoreLeavesCheckpointsToTheWriter() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/run.sqlite"
        let database = try AppDatabase.open(path: path)
        let before = Self.fileSize(path)
        try await Self.importLargeReceipts(database)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(Self.fileSize(path) < before + 1_000_000)
        #expect(Self.fileSize(path + "-wal") > 1_000_000)
        await database.close()
    }
}
