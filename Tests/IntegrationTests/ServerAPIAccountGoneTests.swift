import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// An account Apple no longer knows, as each API says it.
@Suite struct ServerAPIAccountGoneTests {
    /// Issue 34 (item 9): the Server API says 404 4040001 AccountNotFound, not verifyReceipt's 21010.
    @Test(arguments: StoreKind.allCases) func aGoneAccountShowsTheServerAPIsOwnCodeInRunItems(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.accountGone])

            let summary = try await world.runServerAPI()

            #expect(summary.count(.accountGone) == 1)
            let item = try #require(try await world.report(.runItems).first)
            #expect(item["outcome"] == "account_gone")
            #expect(item["apple_status"] == "4040001")
            #expect(item["message"] == "the App Store Server API answered AccountNotFound (4040001); its subscriptions run until their stored expiry")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE last_apple_status = 4040001") == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func verifyReceiptStillShows21010(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.accountGone])

            _ = try await world.run()

            let item = try #require(try await world.report(.runItems).first)
            #expect(item["apple_status"] == "21010")
            #expect(item["message"] == "Apple cannot find this account (21010); its subscriptions run until their stored expiry")
        }
    }
}
