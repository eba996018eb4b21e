import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// `subrecon import` through the built binary: what an operator's file does on either store.
@Suite struct ImportBinaryTests {
    /// Issue 34 (item 7): a StoreKit 2 app's CSV has no receipt_data column, as JSON Lines may omit the key.
    @Test(arguments: StoreKind.allCases) func aCSVWithoutReceiptDataImportsInServerAPIModeAsJSONLinesDoes(store: StoreKind) async throws {
        let world = try await TestWorld.make(store: store)
        defer { Task { await world.close() } }
        let serverAPI = world.storeEnvironment.merging(["SUBRECON_APPLE_API": "server-api"]) { $1 }
        let transactions = world.folder + "/transactions.csv"
        try "user_id,transaction_id\nu1,2000000123456789\nu2,2000000123456790\n".write(
            toFile: transactions, atomically: true, encoding: .utf8)
        let tokens = world.folder + "/tokens.csv"
        try "user_id,app_account_token\nu3,7e3fb20b-4cdb-47cc-936d-99d65f608138\n".write(
            toFile: tokens, atomically: true, encoding: .utf8)

        let first = try await SubreconBinary.run(["import", transactions], environment: serverAPI)
        let second = try await SubreconBinary.run(["import", tokens], environment: serverAPI)

        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.stdout.contains("imported 2 receipt(s)"))
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(second.stdout.contains("1 app account token(s) registered"))
        #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE transaction_id IS NOT NULL") == 2)
        #expect(try await world.count("SELECT COUNT(*) FROM app_account_tokens WHERE user_id = 'u3'") == 1)

        // In verify-receipt mode the same file is refused row by row, as the JSON Lines would be.
        let refused = try await SubreconBinary.run(["import", transactions], environment: world.storeEnvironment)
        #expect(refused.exitCode == 65)
        #expect(refused.stderr.contains("transactions.csv:2: receipt_data is empty: a row with only a transaction_id"))
        #expect(refused.stderr.contains("transactions.csv:3:"))
    }
}
