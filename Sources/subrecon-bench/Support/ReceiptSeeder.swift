import Dispatch
import Foundation
import GRDB
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Fills a fresh subrecon database with generated receipts, as fast as SQLite takes them: rows are
/// built in batches on every core, then inserted with one cached statement, one transaction per
/// batch. Only one batch is ever in memory, so a million receipts cost no more than ten thousand.
struct ReceiptSeeder {
    var source: any ReceiptSource
    /// `imported_at` of the rows.
    var nowMs: Int64
    var batchSize = 10_000

    struct Result {
        var receipts: Int
        var seconds: Double
        var databaseBytes: Int64
    }

    /// Inserts receipts `0 ..< count` into the subrecon database at `path` (created and migrated).
    func seedSubreconDatabase(path: String, count: Int) throws -> Result {
        let watch = Stopwatch()
        let database = try AppDatabase.open(path: path)
        let nowMs = self.nowMs
        var start = 0
        while start < count {
            let rows = makeRows(Int64(start)..<Int64(min(count, start + batchSize)))
            try database.writer.write { db in
                let insert = try db.cachedStatement(
                    sql: BenchmarkSQL.seedReceipt)
                for row in rows {
                    try insert.execute(arguments: [row.userID, row.receiptData, row.productID, nowMs])
                }
            }
            start += rows.count
        }
        try database.writer.writeWithoutTransaction { db in try db.execute(sql: BenchmarkSQL.checkpoint) }
        return Result(receipts: count, seconds: watch.seconds, databaseBytes: Self.fileSize(path))
    }

    /// The rows of `range`, built in parallel.
    func makeRows(_ range: Range<Int64>) -> [ReceiptRow] {
        let count = range.count
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 256))
        let slots = UnsafeMutableBufferPointer<ReceiptRow?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        nonisolated(unsafe) let shared = slots
        let source = self.source
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var offset = worker
            while offset < count {
                shared[offset] = source.row(range.lowerBound + Int64(offset))
                offset += workers
            }
        }
        return slots.map { $0! }
    }

    static func fileSize(_ path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
