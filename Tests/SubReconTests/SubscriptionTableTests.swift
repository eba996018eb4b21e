import Testing

@testable import SubRecon
@testable import SubReconModel

/// `subrecon user`'s before → after table: a star only where something changed, and the row says what.
@Suite struct SubscriptionTableTests {
    static func row(token: String? = nil, billingRetry: Bool? = nil, expires: Int64 = 1_798_974_584_000) -> StoredSubscription {
        StoredSubscription(
            userID: "u1", originalTransactionID: "1000", productID: "com.example.pro.monthly", status: .active,
            expiresDateMs: expires, autoRenewStatus: true, isInBillingRetry: billingRetry, environment: .production,
            lastVerifiedAt: 1, firstSeenAt: 1, updatedAt: 1, appAccountToken: token)
    }

    /// The lines of the table after its header.
    static func rows(_ table: String) -> [String] { Array(table.split(separator: "\n").dropFirst().map(String.init)) }

    @Test func anUnchangedRowHasNoStar() {
        let table = SubscriptionTable.render(before: [Self.row()], after: [Self.row()])
        #expect(!table.contains("*"), "\(table)")
        #expect(Self.rows(table).count == 1)
    }

    /// A token set (or billing retry starting) changes no column the table shows: the star used to
    /// stand there unexplained.
    @Test func aChangeTheColumnsDoNotShowIsNamed() {
        let token = "2d9e4b4a-d2a3-47fe-b25a-e17bd69453d3"
        let table = SubscriptionTable.render(before: [Self.row()], after: [Self.row(token: token, billingRetry: true)])
        let rows = Self.rows(table)
        #expect(rows.count == 2, "\(table)")
        #expect(rows.last?.hasPrefix("after *") == true)
        #expect(rows.last?.hasSuffix("billing retry started, token set") == true, "\(table)")
        #expect(table.split(separator: "\n").first?.hasSuffix("changed") == true)
    }

    @Test func aBilledPeriodAddedIsNamedAndStarred() {
        let table = SubscriptionTable.render(before: [Self.row()], after: [Self.row()], newPeriods: ["1000": 2])
        #expect(Self.rows(table).last?.hasSuffix("+2 billed periods") == true, "\(table)")
        #expect(Self.rows(table).last?.hasPrefix("after *") == true)
    }

    @Test func aRenewalNamesWhatMovedAndJSONSaysTheSame() throws {
        let report = UserReverification(
            userID: "u1", dryRun: false, items: [], before: [Self.row()],
            after: [Self.row(expires: 1_801_652_984_000)], newPeriods: ["1000": 1])
        #expect(Self.rows(report.text).contains { $0.hasPrefix("after *") && $0.hasSuffix("expires, +1 billed period") })
        #expect(report.changes == ["1000": ["expires", "+1 billed period"]])
        #expect(try UserReverification.json([report]).contains(#""changes":{"1000":["expires","+1 billed period"]}"#))
    }
}
