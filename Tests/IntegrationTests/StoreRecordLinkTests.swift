import Foundation
import Testing

@testable import SubReconModel
@testable import SubReconStore

/// `recordLink`, the intent-named write `subrecon link` records itself with (it once imported a
/// synthetic row): on both stores, the token registered as the user's and the purchase stored as a
/// receipt known by its transaction id, unless the user already holds it; a second link changes
/// nothing. `LinkBinaryTests` covers the command end to end.
@Suite struct StoreRecordLinkTests {
    static let now: Int64 = 1_795_329_964_000
    static let token = "0c8a1c9e-3f4b-4f7e-9a51-7d2a3c4b5e6f"

    @Test(arguments: StoreKind.allCases) func aLinkRegistersTheTokenAndStoresThePurchaseOnce(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store

            try await store.recordLink(
                userID: "u1", originalTransactionID: "2000000001", bundleID: "com.example.app", token: Self.token, nowMs: Self.now)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE user_id = 'u1' AND transaction_id = '2000000001' AND bundle_id = 'com.example.app'") == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM app_account_tokens WHERE user_id = 'u1' AND app_account_token = '\(Self.token)'") == 1)
            #expect(try await store.userOfToken(Self.token, forUnknownTransaction: "2000000009") == "u1")

            // Linked again (a second `link`): what an import of the same row does, nothing.
            try await store.recordLink(
                userID: "u1", originalTransactionID: "2000000001", bundleID: "com.example.app", token: Self.token, nowMs: Self.now + 1)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts") == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM receipt_versions") == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM app_account_tokens") == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func aUserWhoHoldsThePurchaseGetsOnlyTheToken(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            try await world.execute(
                """
                INSERT INTO subscriptions (user_id, original_transaction_id, product_id, status, expires_date_ms, environment,
                    last_verified_at, first_seen_at, updated_at)
                VALUES ('u2', '2000000002', 'com.example.pro.monthly', 'active', \(Self.now), 'Production', 1, 1, 1)
                """)

            try await world.store.recordLink(
                userID: "u2", originalTransactionID: "2000000002", bundleID: nil, token: Self.token, nowMs: Self.now)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM app_account_tokens WHERE user_id = 'u2'") == 1)
        }
    }
}
