import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// The ledger as the reconciler writes it: money from signed data on new periods, revisions of
/// stored periods (money filled in, refunds, reversals), newest signed data wins, verifyReceipt
/// leaves amounts unknown.
@Suite("Ledger: the reconciler's money")
struct LedgerReconcileTests {
    typealias R = ReceiptReconcilerTests
    let reconciler = ReceiptReconciler()

    static let purchase = R.now - 10 * R.day
    static let expires = R.now + 20 * R.day

    static func money(
        price: Int64? = 9990, currency: String? = "USD", reason: String? = "RENEWAL", signed: Int64 = R.now,
        revocationType: String? = nil, percentage: Int64? = nil
    ) -> TransactionMoney {
        TransactionMoney(
            priceMilliunits: price, currency: currency, storefront: "USA", offerType: nil, offerDiscountType: nil,
            offerPeriod: nil, transactionReason: reason, revocationType: revocationType, revocationPercentage: percentage,
            signedDateMs: signed)
    }

    static func signedPeriod(_ money: TransactionMoney?, cancelled: Int64? = nil) -> AppleTransaction {
        var period = R.period(1, purchase: purchase, expires: expires, cancelled: cancelled)
        period.money = money
        return period
    }

    static func serverAPIAnswer(_ periods: [AppleTransaction], asOf: Int64 = R.now) -> VerificationOutcome {
        .answered(
            AppleAccount(
                environment: .production, transactions: periods,
                renewals: [PendingRenewal(originalTransactionID: R.otid, productID: R.monthly, autoRenewProductID: R.monthly, autoRenewStatus: true)],
                asOfMs: asOf))
    }

    @Test func aNewPeriodFromSignedDataCarriesItsMoneyOwnershipAndEnvironment() throws {
        let update = reconciler.reconcile(
            Self.serverAPIAnswer([Self.signedPeriod(Self.money())]), snapshot: R.snapshot(), nowMs: R.now, runID: 3)
        let record = try #require(update.newRenewals.first)
        #expect(record.priceMilliunits == 9990)
        #expect(record.currency == "USD")
        #expect(record.storefront == "USA")
        #expect(record.transactionReason == "RENEWAL")
        #expect(record.ownershipType == "PURCHASED")
        #expect(record.environment == "Production")
        #expect(record.refundMilliunits == 0)
        #expect(record.ledgerSignedDateMs == R.now)
    }

    @Test func aVerifyReceiptPeriodStaysUnpriced() throws {
        let period = R.period(1, purchase: Self.purchase, expires: Self.expires)
        let update = reconciler.reconcile(R.answer([period]), snapshot: R.snapshot(), nowMs: R.now, runID: 3)
        let record = try #require(update.newRenewals.first)
        #expect(record.priceMilliunits == nil && record.currency == nil && record.refundMilliunits == nil)
        #expect(record.environment == "Production" && record.ownershipType == "PURCHASED")
        #expect(record.ledgerSignedDateMs == nil)
    }

    @Test func signedDataFillsTheMoneyOfAPeriodFirstSeenThroughVerifyReceipt() throws {
        let plain = R.period(1, purchase: Self.purchase, expires: Self.expires)
        let snapshot = R.snapshot([R.stored(status: .active, expires: Self.expires)], renewals: [plain])
        let update = reconciler.reconcile(Self.serverAPIAnswer([Self.signedPeriod(Self.money())]), snapshot: snapshot, nowMs: R.now, runID: 4)
        #expect(update.newRenewals.isEmpty)
        let revised = try #require(update.renewalRevisions.first)
        #expect(revised.priceMilliunits == 9990 && revised.refundMilliunits == 0)
        // The row keeps who first saw it.
        #expect(revised.firstSeenRunID == 1)
        #expect(update.runItem.outcome == .updated)
    }

    @Test func theSameMoneySignedAgainWritesNothing() throws {
        let first = reconciler.reconcile(
            Self.serverAPIAnswer([Self.signedPeriod(Self.money(signed: R.now - R.day))]), snapshot: R.snapshot(), nowMs: R.now, runID: 3)
        var snapshot = R.snapshot([R.stored(status: .active, expires: Self.expires)])
        snapshot.renewals = Dictionary(uniqueKeysWithValues: first.newRenewals.map { ($0.periodKey, $0) })
        let again = reconciler.reconcile(
            Self.serverAPIAnswer([Self.signedPeriod(Self.money(signed: R.now))]), snapshot: snapshot, nowMs: R.now, runID: 4)
        #expect(again.renewalRevisions.isEmpty)
        #expect(again.newRenewals.isEmpty)
    }

    @Test("refunds", arguments: [
        // (revocation type, percentage, upgraded, expected refund)
        (String?.some("REFUND_FULL"), Int64?.none, false, Int64?.some(9990)),
        ("REFUND_PRORATED", 50_000, false, 4995),
        ("REFUND_PRORATED", nil, false, nil),
        ("FAMILY_REVOKE", nil, false, 0),
        (nil, nil, false, 9990),
        (nil, nil, true, 0),
        ("REFUND_FULL", nil, true, 9990),
        ("SOMETHING_NEW", nil, false, nil),
    ])
    func aRefundRevisesTheStoredPeriod(type: String?, percentage: Int64?, upgraded: Bool, expected: Int64?) throws {
        let before = reconciler.reconcile(
            Self.serverAPIAnswer([Self.signedPeriod(Self.money(signed: R.now - R.day))]), snapshot: R.snapshot(), nowMs: R.now, runID: 3)
        var snapshot = R.snapshot([R.stored(status: .active, expires: Self.expires)])
        snapshot.renewals = Dictionary(uniqueKeysWithValues: before.newRenewals.map { ($0.periodKey, $0) })
        var refunded = Self.signedPeriod(
            Self.money(signed: R.now, revocationType: type, percentage: percentage), cancelled: R.now - 3_600_000)
        refunded.isUpgraded = upgraded
        // An upgrade comes with the transaction that replaced the old one.
        var replacement = R.period(
            2, product: "com.example.pro.yearly", purchase: R.now - 3_600_000, expires: R.now + 365 * R.day)
        replacement.money = Self.money(price: 99_990, reason: "PURCHASE")
        let periods = upgraded ? [refunded, replacement] : [refunded]
        let update = reconciler.reconcile(Self.serverAPIAnswer(periods), snapshot: snapshot, nowMs: R.now, runID: 4)
        let revised = try #require(update.renewalRevisions.first)
        #expect(revised.cancellationDateMs == R.now - 3_600_000)
        #expect(revised.refundMilliunits == expected)
        #expect(revised.revocationType == type)
    }

    @Test func aReversedRefundSetsTheRefundBackToZero() throws {
        var stored = R.record(of: Self.signedPeriod(nil))
        stored.cancellationDateMs = R.now - R.day
        stored.priceMilliunits = 9990
        stored.currency = "USD"
        stored.revocationType = "REFUND_FULL"
        stored.refundMilliunits = 9990
        stored.ledgerSignedDateMs = R.now - R.day
        var snapshot = R.snapshot([R.stored(status: .refunded, expires: Self.expires)])
        snapshot.renewals = [stored.periodKey: stored]
        let update = reconciler.reconcile(Self.serverAPIAnswer([Self.signedPeriod(Self.money())]), snapshot: snapshot, nowMs: R.now, runID: 4)
        let revised = try #require(update.renewalRevisions.first)
        #expect(revised.cancellationDateMs == nil)
        #expect(revised.revocationType == nil)
        #expect(revised.refundMilliunits == 0)
    }

    @Test func olderSignedDataNeverReplacesNewer() throws {
        var stored = R.record(of: Self.signedPeriod(nil))
        stored.cancellationDateMs = R.now - R.day
        stored.priceMilliunits = 9990
        stored.currency = "USD"
        stored.revocationType = "REFUND_FULL"
        stored.refundMilliunits = 9990
        stored.ledgerSignedDateMs = R.now
        var snapshot = R.snapshot([R.stored(status: .refunded, expires: Self.expires)])
        snapshot.renewals = [stored.periodKey: stored]
        // A notification signed before the refund, delivered late.
        let late = Self.serverAPIAnswer([Self.signedPeriod(Self.money(signed: R.now - 2 * R.day))], asOf: R.now - 2 * R.day)
        let update = reconciler.reconcile(late, snapshot: snapshot, nowMs: R.now, runID: 4)
        #expect(update.renewalRevisions.isEmpty)
    }

    @Test func aVerifyReceiptRefundOfAPricedPeriodBooksTheWholePrice() throws {
        var stored = R.record(of: Self.signedPeriod(nil))
        stored.priceMilliunits = 9990
        stored.currency = "USD"
        stored.refundMilliunits = 0
        var snapshot = R.snapshot([R.stored(status: .active, expires: Self.expires)])
        snapshot.renewals = [stored.periodKey: stored]
        let refunded = R.period(1, purchase: Self.purchase, expires: Self.expires, cancelled: R.now - R.day)
        let update = reconciler.reconcile(R.answer([refunded]), snapshot: snapshot, nowMs: R.now, runID: 4)
        #expect(update.renewalCancellations == [
            RenewalCancellation(periodKey: stored.periodKey, cancellationDateMs: R.now - R.day, refundMilliunits: 9990),
        ])
        #expect(update.renewalRevisions.isEmpty)
    }

    @Test func aMalformedPriceLeavesTheAmountEmptyButTheStateApplies() throws {
        let body = #"""
            {"transactionId":"2","originalTransactionId":"1","webOrderLineItemId":"3","productId":"p","purchaseDate":1000,
             "expiresDate":2000,"type":"Auto-Renewable Subscription","price":"9.99","currency":"USD","revocationPercentage":100001,
             "transactionReason":"SOMETHING_NEW","signedDate":1500}
            """#
        let payload = try SignedTransactionPayload.scan(Array(body.utf8))
        #expect(payload.price == nil)
        #expect(payload.revocationPercentage == nil)
        #expect(payload.currency == "USD")
        #expect(payload.transactionReason == "SOMETHING_NEW")
        #expect(payload.moneyProblems?.count == 2)
        #expect(payload.expiresDate == 2000)
        let negative = try SignedTransactionPayload.scan(Array(#"{"transactionId":"2","price":-5,"expiresDate":2000}"#.utf8))
        #expect(negative.price == nil && negative.moneyProblems?.count == 1)
        let fine = try SignedTransactionPayload.scan(Array(#"{"transactionId":"2","price":0,"revocationPercentage":100000}"#.utf8))
        #expect(fine.price == 0 && fine.revocationPercentage == 100_000 && fine.moneyProblems == nil)
        // Refunds the ledger cannot price are said too (docs/finance.md, the ledger: "left empty and logged").
        let prorated = try SignedTransactionPayload.scan(
            Array(#"{"transactionId":"2","price":9990,"revocationDate":5,"revocationType":"REFUND_PRORATED"}"#.utf8))
        #expect(prorated.moneyProblems?.first?.hasPrefix("REFUND_PRORATED without revocationPercentage") == true)
        let unknown = try SignedTransactionPayload.scan(
            Array(#"{"transactionId":"2","price":9990,"revocationDate":5,"revocationType":"REFUND_SOMETHING"}"#.utf8))
        #expect(unknown.moneyProblems?.first?.contains("REFUND_SOMETHING") == true)
        let full = try SignedTransactionPayload.scan(
            Array(#"{"transactionId":"2","price":9990,"revocationDate":5,"revocationType":"REFUND_FULL"}"#.utf8))
        #expect(full.moneyProblems == nil)
    }
}
