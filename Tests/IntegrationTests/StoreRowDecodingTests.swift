import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The reconciliation reads stored subscriptions and renewal records by column position (its hot
/// path); GRDB's Codable decoding of `SELECT *` reads them by name. Both must give the same values
/// for every column, set or NULL, or a reordered column list would silently swap fields.
@Suite struct StoreRowDecodingTests {
    static let full = StoredSubscription(
        userID: "user-1", originalTransactionID: "1000000001", receiptID: 1, productID: "com.example.monthly",
        status: .gracePeriod, expiresDateMs: 1_700_000_000_001, autoRenewStatus: true,
        autoRenewProductID: "com.example.yearly", expirationIntent: 2, gracePeriodExpiresDateMs: 1_700_000_000_002,
        isInBillingRetry: true, cancellationDateMs: 1_700_000_000_003, ownershipType: "FAMILY_SHARED",
        environment: .sandbox, lastVerifiedAt: 1_700_000_000_004, firstSeenAt: 1_700_000_000_005,
        updatedAt: 1_700_000_000_006, flag: "kept: answer older than stored")
    static let sparse = StoredSubscription(
        userID: "user-1", originalTransactionID: "1000000002", receiptID: nil, productID: "com.example.yearly",
        status: .expired, expiresDateMs: 1_600_000_000_000, autoRenewStatus: nil, autoRenewProductID: nil,
        expirationIntent: nil, gracePeriodExpiresDateMs: nil, isInBillingRetry: nil, cancellationDateMs: nil,
        ownershipType: nil, environment: .production, lastVerifiedAt: 7, firstSeenAt: 8, updatedAt: 9, flag: nil)
    static let renewalFull = RenewalRecord(
        userID: "user-1", periodKey: "wo:2000000001", transactionID: "1000000011", originalTransactionID: "1000000001",
        webOrderLineItemID: "2000000001", productID: "com.example.monthly", purchaseDateMs: 1_699_000_000_000,
        expiresDateMs: 1_700_000_000_001, cancellationDateMs: 1_699_500_000_000, isTrialPeriod: true,
        isInIntroOfferPeriod: true, receiptID: 1, firstSeenRunID: 1, firstSeenAt: 1_700_000_000_010)
    static let renewalSparse = RenewalRecord(
        userID: "user-1", periodKey: "tx:1000000012", transactionID: "1000000012", originalTransactionID: "1000000002",
        webOrderLineItemID: nil, productID: "com.example.yearly", purchaseDateMs: nil, expiresDateMs: 1_600_000_000_000,
        cancellationDateMs: nil, isTrialPeriod: false, isInIntroOfferPeriod: false, receiptID: nil, firstSeenRunID: nil,
        firstSeenAt: 11)

    @Test func positionalReadsMatchReadsByName() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-rows-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(path: folder + "/rows.sqlite")
        let receipt = ReceiptToVerify(id: 1, userID: "user-1", receiptData: "MIIT", environment: nil)
        let runID = try await database.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 1, nowMs: 1)
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO receipts (id, user_id, receipt_data, product_id) VALUES (1, 'user-1', 'MIIT', 'p')")
            let update = ReceiptUpdate(
                receiptID: 1, userID: "user-1", subscriptions: [Self.full, Self.sparse],
                newRenewals: [Self.renewalFull, Self.renewalSparse], renewalCancellations: [], receipt: nil,
                runItem: RunItem(
                    receiptID: 1, userID: "user-1", outcome: .updated, appleStatus: 0, environment: .sandbox,
                    oldStatus: nil, newStatus: .gracePeriod, oldExpiresDateMs: nil,
                    newExpiresDateMs: 1_700_000_000_001, message: nil, recordedAt: 1))
            try UpdateWriter(db).apply(update, runID: runID, digest: nil)
        }

        let (snapshot, byName, renewalsByName) = try await database.writer.read { db in
            (
                try SnapshotReader(db).snapshot(receipt: receipt, periodKeys: ["wo:2000000001", "tx:1000000012", "absent"]),
                try StoredSubscription.fetchAll(db, sql: "SELECT * FROM subscriptions ORDER BY original_transaction_id"),
                try RenewalRecord.fetchAll(db, sql: "SELECT * FROM renewals ORDER BY period_key")
            )
        }
        #expect(byName == [Self.full, Self.sparse])
        #expect(snapshot.subscriptions == ["1000000001": Self.full, "1000000002": Self.sparse])
        #expect(renewalsByName == [Self.renewalSparse, Self.renewalFull])
        #expect(snapshot.renewals == ["wo:2000000001": Self.renewalFull, "tx:1000000012": Self.renewalSparse])
    }

    /// The snapshot compares the stored receipt data in place: a replaced receipt must come back
    /// with its new data, an unchanged one with the same.
    @Test func theReReadReceiptCarriesWhatIsStoredNow() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-rows-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(path: folder + "/rows.sqlite")
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO receipts (id, user_id, receipt_data, environment, consecutive_failures)
                    VALUES (1, 'user-1', 'MIIT-stored-now', 'Sandbox', 3), (2, 'user-2', 'MIIT-same', NULL, 0)
                    """)
        }
        let asRead1 = ReceiptToVerify(id: 1, userID: "user-1", receiptData: "MIIT-stored-then", environment: nil)
        let asRead2 = ReceiptToVerify(id: 2, userID: "user-2", receiptData: "MIIT-same", environment: .production)
        let asRead3 = ReceiptToVerify(id: 3, userID: "user-3", receiptData: "MIIT-deleted", environment: nil)
        let (first, second, gone) = try await database.writer.read { db in
            (
                try SnapshotReader(db).snapshot(receipt: asRead1, periodKeys: []),
                try SnapshotReader(db).snapshot(receipt: asRead2, periodKeys: []),
                try SnapshotReader(db).snapshot(receipt: asRead3, periodKeys: [])
            )
        }
        #expect(first.receipt.receiptData == "MIIT-stored-now")
        #expect(first.receipt.environment == .sandbox)
        #expect(first.consecutiveFailures == 3)
        #expect(second.receipt == ReceiptToVerify(id: 2, userID: "user-2", receiptData: "MIIT-same", environment: nil))
        #expect(gone.receipt == asRead3)
    }

    /// A precomputed digest is used only for the data it was computed from; an empty string is
    /// stored as an empty string, not NULL.
    @Test func aDigestOfOtherDataIsNotTrustedAndEmptyTextStaysText() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-rows-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(path: folder + "/rows.sqlite")
        let withEmptyFlag = {
            var subscription = Self.sparse
            subscription.flag = ""
            return subscription
        }()
        let runID = try await database.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 1, nowMs: 1)
        let stale = ReceiptDigest(data: "MIIT-something-else")
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO receipts (id, user_id, receipt_data) VALUES (1, 'user-1', 'MIIT')")
            let update = ReceiptUpdate(
                receiptID: 1, userID: "user-1", subscriptions: [withEmptyFlag], newRenewals: [], renewalCancellations: [],
                receipt: ReceiptChange(
                    newReceiptData: "MIIT-new", environment: .sandbox, nextDueAt: 5, verificationState: "verified",
                    attemptedAt: 4, appleStatus: 0, verifiedAt: 4, consecutiveFailures: 0, message: nil),
                runItem: RunItem(
                    receiptID: 1, userID: "user-1", outcome: .updated, appleStatus: 0, environment: .sandbox,
                    oldStatus: nil, newStatus: .expired, oldExpiresDateMs: nil, newExpiresDateMs: 1, message: nil,
                    recordedAt: 4))
            try UpdateWriter(db).apply(update, runID: runID, digest: stale)
        }
        let (versions, flag, flagIsNull, data) = try await database.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT receipt_sha256 FROM receipt_versions"),
                try String.fetchOne(db, sql: "SELECT flag FROM subscriptions"),
                try Bool.fetchOne(db, sql: "SELECT flag IS NULL FROM subscriptions"),
                try String.fetchOne(db, sql: "SELECT receipt_data FROM receipts WHERE id = 1")
            )
        }
        #expect(versions == [ReceiptFingerprint.sha256Hex("MIIT-new")])
        #expect(versions != [stale.sha256Hex])
        #expect(flag == "")
        #expect(flagIsNull == false)
        #expect(data == "MIIT-new")
    }

    /// A value SQLite refuses to bind (here: over a lowered length limit) is a thrown error that
    /// rolls the write back, never a crash and never a NULL written in its place.
    @Test func aValueSQLiteRefusesToBindIsAnErrorNotANull() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-rows-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = try DatabaseQueue(path: folder + "/bind.sqlite")
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (x TEXT)")
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 64)
        }
        #expect(throws: DatabaseError.self) {
            try queue.write { db in
                let insert = try DirectStatement(db, sql: "INSERT INTO t (x) VALUES (?)")
                try insert.run("short")
                try insert.run(String(repeating: "a", count: 65))
            }
        }
        let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }
        #expect(rows == 0)
        try queue.write { db in try DirectStatement(db, sql: "INSERT INTO t (x) VALUES (?)").run("short") }
        #expect(try queue.read { db in try String.fetchAll(db, sql: "SELECT x FROM t") } == ["short"])
    }
}
