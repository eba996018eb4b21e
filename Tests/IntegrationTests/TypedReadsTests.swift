import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// The store's typed reads (`SubReconStore/Reads`) give what the tables hold, alike on both
/// stores: the application reads only through them.
@Suite struct TypedReadsTests {
    @Test(arguments: StoreKind.allCases) func readsGiveWhatTheTablesHold(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded, .expired])
            let run = try await world.run()
            let runID = try #require(run.runID)
            let nowMs = world.clock.nowMs

            try await world.store.withReadSnapshot { db in
                // Status.
                let byStatus = try await db.subscriptionCountsByStatus()
                #expect(byStatus == ["active": 1, "refunded": 1, "expired": 1])
                let states = try await db.receiptCountsByState(dueAt: nowMs)
                #expect(states.map(\.state) == ["verified"] && states.map(\.receipts) == [3])
                let runs = try await db.latestRuns(nightly: 5, other: 3)
                #expect(runs.map(\.id) == [runID] && runs.map(\.kind) == ["nightly"])
                #expect(runs.first?.receiptsTotal == 3 && runs.first?.updated == 3 && runs.first?.exitCode == 0)
                #expect(runs.first?.finishedAtMs != nil && runs.first?.host != nil && runs.first?.pid != nil)
                #expect(try await db.runs(startedSince: .min) == runs)
                #expect(try await db.runs(startedSince: .max).isEmpty)
                #expect(try await db.failingReceiptCount(threshold: 1) == 0)
                #expect(try await db.failingReceipts(threshold: 1, limit: 10).isEmpty)
                #expect(try await db.notificationCount() == 0)
                #expect(try await db.lastReceiverDeliveryMs() == nil)

                // Reports: typed rows, one at a time, as the raw rows are.
                var subscriptions: [SubscriptionReportRow] = []
                try await db.forEachSubscriptionReportRow { subscriptions.append($0) }
                #expect(subscriptions.map(\.userID) == ["user-active", "user-expired", "user-refunded"])
                #expect(subscriptions.map(\.status) == ["active", "expired", "refunded"])
                var renewals = 0
                try await db.forEachRenewalReportRow { row in
                    #expect(row.userID != nil && row.originalTransactionID != nil)
                    renewals += 1
                }
                let stored = try await db.integer("SELECT COUNT(*) AS value FROM renewals")
                #expect(renewals > 0 && Int64(renewals) == stored)
                var reportRuns: [RunRecord] = []
                try await db.forEachRunReportRow(startedFrom: .min, until: .max) { reportRuns.append($0) }
                #expect(reportRuns == runs)
                var items: [RunItemReportRow] = []
                try await db.forEachRunItemReportRow(ofRun: runID) { items.append($0) }
                #expect(items.map(\.outcome) == ["updated", "updated", "updated"])
                #expect(try await db.latestNightlyRunID() == runID)
                #expect(try await db.runExists(runID))
                #expect(try await !db.runExists(runID + 1))
                var changes: [ChangeReportRow] = []
                try await db.forEachChangeReportRow(ofRun: runID) { changes.append($0) }
                #expect(changes.count == 3 && changes.allSatisfy { $0.change == "new" && $0.runID == runID })
                var windowed = 0
                try await db.forEachChangeReportRow(from: .min, until: .max) { _ in windowed += 1 }
                #expect(windowed == 3)
                var unrecorded: [UnrecordedReportRow] = []
                try await db.forEachUnrecordedReportRow(foundFrom: .min, until: .max) { unrecorded.append($0) }
                #expect(unrecorded.count == renewals && unrecorded.allSatisfy { $0.runKind == "nightly" })
                // Imports carry receipts: their own history was bought before the receipt was handed over.
                #expect(unrecorded.allSatisfy { $0.purchasedAfterImport == false })
                var shared = 0
                try await db.forEachSharedReportRow { _ in shared += 1 }
                #expect(shared == 0)
                #expect(try await db.subscriptionApps().isEmpty)
                #expect(try await db.firstPurchaseMs(environment: "Production") != nil)

                // Identity.
                #expect(try await db.storedUser("user-active").rows == 1)
                #expect(try await db.storedUser("nobody") == (0, nil))
                let otid = try #require(subscriptions.first?.originalTransactionID)
                #expect(try await db.storedTransaction(otid)?.originalTransactionID == otid)
                #expect(try await db.storedTransaction("999") == nil)
                #expect(try await db.purchaseHolders(otid, transactionID: otid, otherThan: "someone-else").map(\.user) == ["user-active"])
                #expect(try await db.purchaseHolders(otid, transactionID: otid, otherThan: "user-active").isEmpty)
                #expect(try await db.tokenHeldPurchases(ofRun: runID).isEmpty)

                // Metrics and the dashboard.
                #expect(try await db.lastSuccessfulRunFinishedAtMs(kind: "nightly") == runs.first?.finishedAtMs)
                #expect(try await db.lastSuccessfulRunFinishedAtMs(kind: "user") == nil)
                #expect(try await db.appleStatusCounts(ofRun: runID).map(\.count).reduce(0, +) == 3)
                #expect(try await db.dueReceiptCount(at: .max) == 3)
                #expect(try await db.deliveredNotificationCount(since: .min) == 0)
                let byApp = try await db.subscriptionCountsByStatusAndApp()
                #expect(byApp.map(\.count).reduce(0, +) == 3 && byApp.allSatisfy { $0.bundleID == nil })
                #expect(try await db.lostOrderCounts(startedSince: .min, byApp: false).isEmpty)
                let unpriced = try await db.integer(
                    "SELECT COUNT(*) AS value FROM renewals WHERE price_milliunits IS NULL OR currency IS NULL OR currency = ''")
                #expect(try await db.unpricedPeriodCount() == unpriced)
                #expect(try await db.appleReportDays(since: nil, until: nil).isEmpty)
            }
        }
    }
}
