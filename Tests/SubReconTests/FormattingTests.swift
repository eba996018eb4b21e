import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// Timestamps, exit codes and the support table.
@Suite("Formatting")
struct FormattingTests {
    // MARK: ISO 8601

    private static func foundation(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(ms) / 1000))
    }

    @Test("known instants, as Foundation formats them", arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (1_795_329_964_000, "2026-11-22T06:46:04Z"),
        (1_709_210_096_000, "2024-02-29T12:34:56Z"),
        (951_782_400_000, "2000-02-29T00:00:00Z"),
        (1_582_934_400_000, "2020-02-29T00:00:00Z"),
        (2_147_483_647_000, "2038-01-19T03:14:07Z"),
        (2_147_483_648_000, "2038-01-19T03:14:08Z"),
        (4_102_444_800_000, "2100-01-01T00:00:00Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00Z"),
        (-1000, "1969-12-31T23:59:59Z"),
        (-86_400_000, "1969-12-31T00:00:00Z"),
        (-2_208_988_800_000, "1900-01-01T00:00:00Z"),
        (-2_203_977_600_000, "1900-02-28T00:00:00Z"),
    ])
    func knownInstants(ms: Int64, expected: String) {
        #expect(ISO8601.string(fromMilliseconds: ms) == expected)
        #expect(ISO8601.string(fromMilliseconds: ms) == Self.foundation(ms))
    }

    @Test("milliseconds are truncated toward the earlier second", arguments: [
        (Int64(1_795_329_964_999), "2026-11-22T06:46:04Z"),
        (1_795_329_964_001, "2026-11-22T06:46:04Z"),
        (999, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-999, "1969-12-31T23:59:59Z"),
        (-1001, "1969-12-31T23:59:58Z"),
        (-86_400_001, "1969-12-30T23:59:59Z"),
    ])
    func subSecond(ms: Int64, expected: String) {
        #expect(ISO8601.string(fromMilliseconds: ms) == expected)
    }

    @Test func farYearsKeepFourDigits() {
        #expect(ISO8601.string(fromMilliseconds: 253_402_300_799_000) == "9999-12-31T23:59:59Z")
        #expect(ISO8601.string(fromMilliseconds: -62_135_596_800_000) == "0001-01-01T00:00:00Z")
    }

    @Test func everyDayOfALeapYearMatchesFoundation() {
        // Given midnight and a late second of every day from 2023-12-31 to 2025-01-01
        let start: Int64 = 1_703_980_800_000
        for day in Int64(0)..<368 {
            for offset: Int64 in [0, 86_399_000] {
                let ms = start + day * 86_400_000 + offset
                #expect(ISO8601.string(fromMilliseconds: ms) == Self.foundation(ms), "\(ms)")
            }
        }
    }

    // MARK: exit codes

    fileprivate static func summary(
        _ counts: [RunItemOutcome: Int], status: RunStatus = .completed, stoppedBy: RunStoppingProblem? = nil
    ) -> RunSummary {
        RunSummary(
            runID: 1, kind: .nightly, receiptsTotal: counts.values.reduce(0, +), counts: counts, stoppedBy: stoppedBy,
            status: status, startedAtMs: 0, finishedAtMs: 1_500)
    }

    @Test("exit codes follow the contract", arguments: [
        (FormattingTests.summary([:]), Int32(0)),
        (FormattingTests.summary([.updated: 3, .unchanged: 10]), 0),
        (FormattingTests.summary([.invalid: 2, .accountGone: 1, .unchanged: 1]), 0),
        (FormattingTests.summary([.updated: 3, .failed: 1]), 1),
        (FormattingTests.summary([.unchanged: 3, .skipped: 2]), 1),
        (FormattingTests.summary([.unchanged: 3], status: .interrupted), 1),
        (FormattingTests.summary([.updated: 1, .skipped: 4], status: .aborted, stoppedBy: .sharedSecretMismatch), 2),
        (FormattingTests.summary([.failed: 2, .skipped: 4], status: .aborted, stoppedBy: .requestRejected), 2),
        (FormattingTests.summary([:], status: .aborted, stoppedBy: .sharedSecretMismatch), 2),
    ] as [(RunSummary, Int32)])
    func exitCodes(summary: RunSummary, expected: Int32) {
        #expect(summary.exitCode == expected)
        #expect(summary.line.contains("exit \(expected)"))
    }

    @Test func theSummaryLineCountsEveryOutcome() {
        let summary = Self.summary([.updated: 3, .unchanged: 10, .failed: 1])
        let line = summary.line
        #expect(line.hasPrefix("nightly run 1 completed: 14 receipts"))
        #expect(line.contains("3 updated"))
        #expect(line.contains("10 unchanged"))
        #expect(line.contains("1 failed"))
        #expect(line.contains("0 skipped"))
        #expect(line.contains("1.5 s"))
    }

    @Test func aStoppedRunSaysWhichStatusStoppedIt() {
        let line = Self.summary([:], status: .aborted, stoppedBy: .sharedSecretMismatch).line
        #expect(line.contains("21004"))
    }

    // MARK: subscription table

    private static func subscription(
        _ otid: String, status: SubscriptionStatus, expires: Int64, autoRenew: Bool? = true
    ) -> StoredSubscription {
        StoredSubscription(
            userID: "u", originalTransactionID: otid, receiptID: 1, productID: "com.example.monthly", status: status,
            expiresDateMs: expires, autoRenewStatus: autoRenew, autoRenewProductID: nil, expirationIntent: nil,
            gracePeriodExpiresDateMs: nil, isInBillingRetry: nil, cancellationDateMs: nil, ownershipType: nil,
            environment: .production, lastVerifiedAt: 0, firstSeenAt: 0, updatedAt: 0, flag: nil)
    }

    private static func lines(_ text: String, containing needle: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains(needle) }
    }

    @Test func aChangedRowIsMarkedAndAnUnchangedRowIsListedOnce() throws {
        // Given one subscription that renewed and one that did not change
        let renewedBefore = Self.subscription("1000000000000001", status: .billingRetry, expires: 1_795_329_964_000)
        let renewedAfter = Self.subscription("1000000000000001", status: .active, expires: 1_797_921_964_000)
        let steady = Self.subscription("2000000000000002", status: .expired, expires: 1_700_000_000_000, autoRenew: false)
        // When the table is rendered
        let table = SubscriptionTable.render(before: [renewedBefore, steady], after: [renewedAfter, steady])
        // Then the header comes first
        #expect(table.split(separator: "\n").first?.contains("original_transaction_id") == true)
        // And the renewed subscription shows its old row and its new row, the new one marked with *
        let renewedRows = Self.lines(table, containing: "1000000000000001")
        #expect(renewedRows.count == 2)
        #expect(renewedRows.filter { $0.contains("*") }.count == 1)
        let marked = try #require(renewedRows.first { $0.contains("*") })
        #expect(marked.contains("active"))
        #expect(marked.contains(ISO8601.string(fromMilliseconds: 1_797_921_964_000)))
        let old = try #require(renewedRows.first { !$0.contains("*") })
        #expect(old.contains("billing_retry"))
        #expect(old.contains("2026-11-22T06:46:04Z"))
        // And the unchanged one is listed once, unmarked
        let steadyRows = Self.lines(table, containing: "2000000000000002")
        #expect(steadyRows.count == 1)
        #expect(steadyRows.first?.contains("*") == false)
        #expect(steadyRows.first?.contains("expired") == true)
        #expect(steadyRows.first?.contains("off") == true)
        #expect(table.hasSuffix("\n"))
    }

    @Test func aNewSubscriptionIsMarkedAndAVanishedOneIsStillShown() {
        let gone = Self.subscription("3000000000000003", status: .expired, expires: 1_700_000_000_000)
        let new = Self.subscription("4000000000000004", status: .active, expires: 1_797_921_964_000)
        let table = SubscriptionTable.render(before: [gone], after: [new])
        let newRows = Self.lines(table, containing: "4000000000000004")
        #expect(newRows.count == 1)
        #expect(newRows.first?.contains("*") == true)
        let goneRows = Self.lines(table, containing: "3000000000000003")
        #expect(goneRows.count == 1)
        #expect(goneRows.first?.contains("*") == false)
    }

    @Test func nothingBeforeOrAfterSaysSo() {
        #expect(SubscriptionTable.render(before: [], after: []) == "(no subscriptions)\n")
    }

    @Test func anUnchangedTableHasNoMarks() {
        let a = Self.subscription("1", status: .active, expires: 1_797_921_964_000)
        let b = Self.subscription("2", status: .refunded, expires: 1_700_000_000_000)
        let table = SubscriptionTable.render(before: [a, b], after: [a, b])
        #expect(!table.contains("*"))
        #expect(table.split(separator: "\n").count == 3)
    }
}
