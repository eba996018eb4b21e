import Foundation
import Testing
@testable import SubReconModel

/// The event body as the model renders it: the contract's keys in order, JSON that any parser
/// reads back to the same values, and the same bytes every time.
@Suite struct EventBodyTests {
    @Test func stringsAreEscapedAsJSONRequiresAndEverythingElseIsKept() throws {
        let tricky = "a\"b\\c\nd\re\tf\u{01}g\u{2028}h\u{2029}i é 🎉 €"
        let text = EventJSON.object([("k", .string(tricky)), ("plain", .string("com.example.app"))]).text
        #expect(text.contains(#"a\"b\\c\nd\re\tf\u0001g\u2028h\u2029i é 🎉 €"#))
        #expect(text.contains(#""plain":"com.example.app""#))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(parsed["k"] == tricky)
        #expect(!text.contains("\n"), "compact: one line")
    }

    @Test func everyChangeKindHasItsSubscriptionEventType() {
        for kind in SubscriptionChange.Kind.allCases {
            #expect(EventType(change: kind).rawValue == "subscription." + kind.rawValue)
        }
        #expect(EventType.allCases.filter(\.carriesPeriod) == [.subscriptionNew, .subscriptionRenewed, .subscriptionRefunded])
    }

    @Test func createdAtHasMilliseconds() {
        #expect(EventDraft.timestamp(1_796_094_000_123) == "2026-12-01T03:00:00.123Z")
        #expect(EventDraft.timestamp(1_796_094_000_000) == "2026-12-01T03:00:00.000Z")
        #expect(EventDraft.timestamp(7) == "1970-01-01T00:00:00.007Z")
    }

    static func row(_ status: SubscriptionStatus, expires: Int64, latest: String) -> StoredSubscription {
        StoredSubscription(
            userID: "u1", originalTransactionID: "100", receiptID: 1, productID: "pro", status: status, expiresDateMs: expires,
            autoRenewStatus: true, cancellationDateMs: status == .refunded ? 5 : nil, environment: .production,
            lastVerifiedAt: 1_796_094_000_000, firstSeenAt: 1, updatedAt: 1, latestTransactionID: latest)
    }

    static func period(_ transaction: String, expires: Int64, cancelled: Int64? = nil) -> RenewalRecord {
        RenewalRecord(
            userID: "u1", periodKey: transaction, transactionID: transaction, originalTransactionID: "100", productID: "pro",
            purchaseDateMs: expires - 10, expiresDateMs: expires, cancellationDateMs: cancelled, isTrialPeriod: false,
            isInIntroOfferPeriod: false, firstSeenAt: 1, priceMilliunits: 4_990, currency: "USD")
    }

    @Test func aRenewalsBodyHasTheContractsKeysInOrderWithTypedValues() throws {
        var change = try #require(
            SubscriptionChange(old: Self.row(.active, expires: 1_000, latest: "t1"), new: Self.row(.active, expires: 2_000, latest: "t2"), recordedAt: 1_796_094_000_123))
        #expect(change.kind == .renewed)
        change.period = change.governingPeriod(among: [Self.period("t1", expires: 1_000), Self.period("t2", expires: 2_000)])
        #expect(change.period?.transactionID == "t2")
        let draft = EventDraft(
            change: change, origin: EventOrigin(source: .run, runID: 9), app: "com.example.app", id: "b5e3c1d2-7a44-4f0e-8c9b-2d1f6a3e5b77",
            createdAtMs: change.recordedAt)
        let body = draft.body(seq: 2, position: 18)
        #expect(body == draft.body(seq: 2, position: 18), "the same bytes every time")
        #expect(body.hasPrefix(#"{"id":"b5e3c1d2-7a44-4f0e-8c9b-2d1f6a3e5b77","type":"subscription.renewed","created_at":"2026-12-01T03:00:00.123Z","app":"com.example.app","environment":"Production","user_id":"u1","original_transaction_id":"100","seq":2,"position":18,"source":"run","run_id":9,"notification_uuid":null,"before":{"user_id":"u1","original_transaction_id":"100","product_id":"pro","status":"active","entitled":true,"#))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let after = try #require(json["after"] as? [String: Any])
        #expect(after.count == EventSubscriptionObject.keys.count)
        #expect(after["auto_renew_status"] as? Int == 1 && after["cancellation_date_ms"] is NSNull)
        let period = try #require(json["period"] as? [String: Any])
        #expect(period.count == EventPeriodObject.keys.count)
        #expect(period["price"] as? String == "4.99" && period["price_milliunits"] as? Int == 4_990)
        #expect(period["is_trial_period"] as? Bool == false)
    }

    @Test func aRefundNamesTheRevokedTransactionAndOtherKindsNoPeriod() throws {
        var refund = try #require(
            SubscriptionChange(old: Self.row(.active, expires: 2_000, latest: "t2"), new: Self.row(.refunded, expires: 2_000, latest: "t2"), recordedAt: 3))
        #expect(refund.kind == .refunded)
        let periods = [Self.period("t1", expires: 1_000), Self.period("t2", expires: 2_000, cancelled: 5)]
        refund.period = refund.governingPeriod(among: periods)
        #expect(refund.period?.transactionID == "t2")
        let draft = EventDraft(change: refund, origin: EventOrigin(source: .notification, notificationUUID: "n-1"), app: nil, id: "x", createdAtMs: 3)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(draft.body(seq: 3, position: 4).utf8)) as? [String: Any])
        #expect(json["notification_uuid"] as? String == "n-1" && json["run_id"] is NSNull && json["app"] is NSNull)
        #expect((json["after"] as? [String: Any])?["cancellation_date_ms"] as? Int == 5)

        let autoRenew = try #require(
            SubscriptionChange(
                old: Self.row(.active, expires: 2_000, latest: "t2"),
                new: { var row = Self.row(.active, expires: 2_000, latest: "t2"); row.autoRenewStatus = false; return row }(), recordedAt: 3))
        #expect(autoRenew.kind == .autoRenewChanged)
        #expect(autoRenew.governingPeriod(among: periods) == nil)
    }

    @Test func userForgottenHasNoSubscriptionFields() throws {
        let body = EventDraft.userForgotten(userID: "u1", app: "com.example.app", id: "x", createdAtMs: 0).body(seq: nil, position: 1)
        #expect(body == #"{"id":"x","type":"user.forgotten","created_at":"1970-01-01T00:00:00.000Z","app":"com.example.app","environment":null,"user_id":"u1","original_transaction_id":null,"seq":null,"position":1,"source":"forget","run_id":null,"notification_uuid":null,"before":null,"after":null,"period":null}"#)
    }
}
