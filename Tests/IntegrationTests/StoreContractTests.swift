import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The store protocol itself, one suite run against both implementations (a SQLite file and a
/// PostgreSQL database): imports, selections, batched reconciliation writes and their atomicity.
@Suite struct StoreContractTests {
    static let now: Int64 = 1_795_329_964_000
    static let month: Int64 = 30 * DuePolicy.day
    static let product = "com.example.pro.monthly"

    func rows(_ users: [String], transactionOnly: Bool = false) -> [ImportRow] {
        users.enumerated().map { index, user in
            transactionOnly
                ? ImportRow(line: index + 2, userID: user, receiptData: "", transactionID: "20000000\(index)")
                : ImportRow(line: index + 2, userID: user, receiptData: Data("RECEIPT-\(user)".utf8).base64EncodedString())
        }
    }

    /// An answer naming one subscription (`otid`) with one period ending at `expires`.
    func answer(otid: String, period: Int, expires: Int64) -> VerificationOutcome {
        let transaction = AppleTransaction(
            transactionID: "\(otid)-\(period)", originalTransactionID: otid, webOrderLineItemID: "\(otid)-w\(period)",
            productID: Self.product, purchaseDateMs: expires - Self.month, expiresDateMs: expires,
            cancellationDateMs: nil, cancellationReason: nil, isUpgraded: false, isTrialPeriod: false,
            isInIntroOfferPeriod: false, ownershipType: "PURCHASED")
        let renewal = PendingRenewal(
            originalTransactionID: otid, productID: Self.product, autoRenewProductID: Self.product, autoRenewStatus: true)
        return .answered(
            VerifyReceiptResponse(
                rawStatus: 0, rawEnvironment: "Production", latestReceipt: nil, transactions: [transaction],
                pendingRenewals: [renewal], requestDateMs: Self.now, bundleID: "com.example"),
            environment: .production)
    }

    func receipts(_ store: any SubscriptionStore) async throws -> [ReceiptToVerify] {
        try await store.receipts(.all, after: .start, limit: 100, nowMs: Self.now)
    }

    @Test(arguments: StoreKind.allCases) func importsAreAllOrNothingAndKnowWhatIsStored(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store

            let first = try await store.importReceipts(rows(["u1", "u2", "u1"]) + rows(["u3"], transactionOnly: true), nowMs: Self.now)
            // The third row is the first's receipt data for the same user: a no-op.
            #expect(first == ImportSummary(imported: 3, alreadyStored: 1))
            #expect(try await store.importReceipts(rows(["u1", "u2"]), nowMs: Self.now) == ImportSummary(imported: 0, alreadyStored: 2))
            #expect(try await store.importReceipts(rows(["u3"], transactionOnly: true), nowMs: Self.now).alreadyStored == 1)

            // A row the schema refuses (an empty user id) takes the whole file down with it.
            await #expect(throws: StoreError.self) {
                _ = try await store.importReceipts(rows(["u8", ""]), nowMs: Self.now)
            }
            #expect(try await store.countReceipts(.all, nowMs: Self.now) == 3)
            #expect(try await store.countReceipts(.user("u8"), nowMs: Self.now) == 0)
            #expect(try await receipts(store).map(\.userID) == ["u1", "u2", "u3"])
        }
    }

    @Test(arguments: StoreKind.allCases) func selectionsCountAndPageInOrder(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store
            _ = try await store.importReceipts(rows(["a0", "b1", "a2", "c3", "d4"]), nowMs: Self.now)
            #expect(try await store.countReceipts(.all, nowMs: Self.now) == 5)
            #expect(try await store.countReceipts(.due, nowMs: Self.now) == 5)
            #expect(try await store.countReceipts(.user("a0"), nowMs: Self.now) == 1)

            var seen: [Int64] = []
            var position = ReceiptCursorPosition.start
            while true {
                let page = try await store.receipts(.all, after: position, limit: 2, nowMs: Self.now)
                seen += page.map(\.id)
                guard let last = page.last, page.count == 2 else { break }
                position = ReceiptCursorPosition(nextDueAt: last.nextDueAt, id: last.id)
            }
            #expect(seen == seen.sorted() && Set(seen).count == 5)
            #expect(try await store.users(holdingOriginalTransactionID: "nobody") == [])
        }
    }

    @Test(arguments: StoreKind.allCases) func aBatchWritesEveryTableAndTwoReceiptsOfOneUserSeeEachOther(store kind: StoreKind)
        async throws
    {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store
            // Two receipts (different data) of one user, and one of another user.
            let imported = [("same", "first"), ("same", "second"), ("other", "only")].enumerated().map { index, pair in
                ImportRow(line: index + 2, userID: pair.0, receiptData: Data("RECEIPT-\(pair.1)".utf8).base64EncodedString())
            }
            _ = try await store.importReceipts(imported, nowMs: Self.now)
            let stored = try await receipts(store)
            #expect(stored.map(\.userID) == ["same", "same", "other"])
            let runID = try await store.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 3, nowMs: Self.now)
            let reconciler = ReceiptReconciler()
            // Two receipts of one user name the same subscription: the second (a later period) is
            // decided against the first's write, as it would be one batch later.
            let outcomes = [
                answer(otid: "7001", period: 1, expires: Self.now + Self.month),
                answer(otid: "7001", period: 2, expires: Self.now + 2 * Self.month),
                answer(otid: "7002", period: 1, expires: Self.now + Self.month),
            ]
            let batch = zip(stored, outcomes).map { receipt, outcome in
                ReceiptReconciliation(receipt: receipt, outcome: outcome, reconciler: reconciler, nowMs: Self.now, runID: runID)
            }

            let preview = try await store.reconcile(batch, runID: nil, write: false)
            #expect(preview.map(\.runItem.outcome) == [.updated, .updated, .updated])
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)

            let updates = try await store.reconcile(batch, runID: runID, write: true)
            #expect(updates[1].subscriptionChanges.map(\.kind) == [.renewed])
            let subscriptions = try await store.subscriptions(ofUser: "same")
            #expect(subscriptions.map(\.expiresDateMs) == [Self.now + 2 * Self.month])
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 3)
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == 3)
            #expect(try await world.count("SELECT COUNT(*) FROM subscription_changes") == 3)
            #expect(try await world.count("SELECT updated FROM runs") == 3)
            #expect(try await store.users(holdingOriginalTransactionID: "7001") == ["same"])
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE verification_state = 'verified'") == 3)

            // The same answers again: nothing new, nothing duplicated.
            let again = try await store.reconcile(batch, runID: runID, write: true)
            #expect(again.map(\.runItem.outcome) == [.unchanged, .unchanged, .unchanged])
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 3)
            #expect(try await world.count("SELECT COUNT(*) FROM subscription_changes") == 3)
        }
    }

    /// An unchanged answer a minute later moves only `last_verified_at` (the SQLite writer then
    /// updates that column alone), and a text that is equal only as Swift compares strings
    /// (another Unicode normalisation) is still stored as Apple sent it.
    @Test(arguments: StoreKind.allCases) func anUnchangedAnswerMovesOnlyLastVerifiedAt(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store
            _ = try await store.importReceipts(rows(["u1"]), nowMs: Self.now)
            let reconciler = ReceiptReconciler()
            func write(_ outcome: VerificationOutcome, at nowMs: Int64) async throws -> ReceiptUpdate {
                let runID = try await store.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: 1, nowMs: nowMs)
                let item = ReceiptReconciliation(
                    receipt: try await receipts(store)[0], outcome: outcome, reconciler: reconciler, nowMs: nowMs, runID: runID)
                return try await store.reconcile([item], runID: runID, write: true)[0]
            }
            let composed = "com.example.caf\u{E9}"  // é as one scalar (4 characters after the dot)
            let decomposed = "com.example.cafe\u{301}"  // e and a combining accent: == in Swift, other bytes
            #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
            func answer(product: String) -> VerificationOutcome {
                guard case .answered(var account) = self.answer(otid: "7001", period: 1, expires: Self.now + Self.month) else {
                    preconditionFailure("answer(otid:period:expires:) answers")
                }
                account.transactions = account.transactions.map { var t = $0; t.productID = product; return t }
                account.renewals = account.renewals.map { var r = $0; r.productID = product; r.autoRenewProductID = product; return r }
                return .answered(account)
            }

            _ = try await write(answer(product: composed), at: Self.now)
            let before = try #require(try await store.subscriptions(ofUser: "u1").first)
            #expect(before.lastVerifiedAt == Self.now)

            let later = Self.now + 60_000
            let again = try await write(answer(product: composed), at: later)
            #expect(again.runItem.outcome == .unchanged)
            var expected = before
            expected.lastVerifiedAt = later
            #expect(try await store.subscriptions(ofUser: "u1") == [expected])

            // Swift calls the decomposed product id the same: unchanged, yet stored byte for byte.
            let decomposedAnswer = try await write(answer(product: decomposed), at: later + 60_000)
            #expect(decomposedAnswer.runItem.outcome == .unchanged)
            #expect(try await world.count("SELECT length(product_id) FROM subscriptions") == "com.example.cafe".count + 1)
            #expect(try await world.count("SELECT length(auto_renew_product_id) FROM subscriptions") == "com.example.cafe".count + 1)
            #expect(try await world.count("SELECT last_verified_at FROM subscriptions") == Int(later + 60_000))
        }
    }

    @Test(arguments: StoreKind.allCases) func aBatchThatFailsWritesNothingAtAll(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let store = world.store
            _ = try await store.importReceipts(rows(["x", "y"]), nowMs: Self.now)
            let stored = try await receipts(store)
            let reconciler = ReceiptReconciler()
            let batch = stored.enumerated().map { index, receipt in
                ReceiptReconciliation(
                    receipt: receipt, outcome: answer(otid: "800\(index)", period: 1, expires: Self.now + Self.month),
                    reconciler: reconciler, nowMs: Self.now, runID: 999)
            }
            // Run 999 does not exist: its run items break a foreign key, after the subscriptions,
            // renewals and receipts of the batch were written in the same transaction.
            await #expect(throws: StoreError.self) { _ = try await store.reconcile(batch, runID: 999, write: true) }
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM renewals") == 0)
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE last_attempt_at IS NOT NULL") == 0)
            #expect(try await store.schemaVersion() == AppDatabase.migrator.migrations.count)
        }
    }
}
