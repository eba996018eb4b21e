import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// A StoreKit 2 app's rows: a transaction id and no receipt data, stored and deduplicated.
@Suite struct TransactionIDImportTests {
    @Test func aTransactionIDOnlyRowIsStoredWithoutReceiptDataAndImportingItAgainIsANoOp() async throws {
        try await TestWorld.make().closing { world in
            let row = ImportRow(line: 2, userID: "u1", receiptData: "", transactionID: "100000000010000000")

            let first = try await world.store.importReceipts([row], nowMs: world.clock.nowMs)
            let again = try await world.store.importReceipts([row], nowMs: world.clock.nowMs)

            #expect(first.imported == 1)
            #expect(again.imported == 0)
            #expect(again.alreadyStored == 1)
            let stored = try await world.database.writer.read { db in
                try Row.fetchOne(db, sql: "SELECT receipt_data, transaction_id FROM receipts")
            }
            #expect(stored?["receipt_data"] == nil as String?)
            #expect(stored?["transaction_id"] == "100000000010000000")
        }
    }

    @Test func theSchemaRefusesARowWithNeitherReceiptDataNorTransactionID() async throws {
        try await TestWorld.make().closing { world in
            await #expect(throws: (any Error).self) {
                try await world.database.writer.write { db in
                    try db.execute(sql: "INSERT INTO receipts (user_id) VALUES ('u1')")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func verifyReceiptModeLeavesAReceiptlessRowDueWithAClearMessage(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "u1", receiptData: "", transactionID: "100000000010000000")], nowMs: world.clock.nowMs)

            let summary = try await world.run()

            #expect(summary.count(.failed) == 1)
            let items = try await world.report(.runItems)
            #expect(items.first?["message"]?.contains("server-api") == true)
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
        }
    }
}
