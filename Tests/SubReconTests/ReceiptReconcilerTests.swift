import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// `ReceiptReconciler.reconcile(_:snapshot:nowMs:runID:)`: one receipt's outcome + what is stored → the writes.
@Suite("ReceiptReconciler")
struct ReceiptReconcilerTests {
    // 2026-11-22T06:46:04Z
    static let now: Int64 = 1_795_329_964_000
    static let day = DuePolicy.day
    static let hour = DuePolicy.hour
    static let otid = "430001587290311"
    static let monthly = "com.example.pro.monthly"
    static let receipt = ReceiptToVerify(id: 7, userID: "user-1", receiptData: "UkVDRUlQVC1PTEQ=", environment: .production)

    let reconciler = ReceiptReconciler()

    // MARK: builders

    static func period(
        _ n: Int, otid: String = ReceiptReconcilerTests.otid, product: String = ReceiptReconcilerTests.monthly, purchase: Int64, expires: Int64,
        cancelled: Int64? = nil, upgraded: Bool = false, trial: Bool = false
    ) -> AppleTransaction {
        AppleTransaction(
            transactionID: "\(otid.prefix(6))\(1000 + n)", originalTransactionID: otid,
            webOrderLineItemID: "\(otid.prefix(6))9\(1000 + n)", productID: product, purchaseDateMs: purchase,
            expiresDateMs: expires, cancellationDateMs: cancelled, cancellationReason: cancelled == nil ? nil : "0",
            isUpgraded: upgraded, isTrialPeriod: trial, isInIntroOfferPeriod: false, ownershipType: "PURCHASED")
    }

    static func answer(
        _ transactions: [AppleTransaction], renewals: [PendingRenewal]? = nil, latestReceipt: String? = "UkVDRUlQVC1ORVc=",
        environment: ReceiptEnvironment = .production, status: Int = 0
    ) -> VerificationOutcome {
        let pending = renewals ?? [PendingRenewal(originalTransactionID: otid, productID: monthly, autoRenewProductID: monthly, autoRenewStatus: true)]
        return .answered(
            VerifyReceiptResponse(
                rawStatus: status, rawEnvironment: environment.rawValue, latestReceipt: latestReceipt,
                transactions: transactions, pendingRenewals: pending, requestDateMs: now, bundleID: "com.example"),
            environment: environment)
    }

    static func stored(
        otid: String = ReceiptReconcilerTests.otid, product: String = ReceiptReconcilerTests.monthly, status: SubscriptionStatus, expires: Int64,
        environment: ReceiptEnvironment = .production, receiptID: Int64? = ReceiptReconcilerTests.receipt.id, updatedAt: Int64 = ReceiptReconcilerTests.now - 40 * ReceiptReconcilerTests.day
    ) -> StoredSubscription {
        StoredSubscription(
            userID: receipt.userID, originalTransactionID: otid, receiptID: receiptID, productID: product, status: status,
            expiresDateMs: expires, autoRenewStatus: true, autoRenewProductID: product, expirationIntent: nil,
            gracePeriodExpiresDateMs: nil, isInBillingRetry: nil, cancellationDateMs: nil, ownershipType: "PURCHASED",
            environment: environment, lastVerifiedAt: now - 40 * day, firstSeenAt: now - 60 * day, updatedAt: updatedAt,
            flag: nil)
    }

    static func record(of period: AppleTransaction, runID: Int64 = 1) -> RenewalRecord {
        RenewalRecord(
            userID: receipt.userID, periodKey: period.periodKey!, transactionID: period.transactionID!,
            originalTransactionID: period.originalTransactionID!, webOrderLineItemID: period.webOrderLineItemID,
            productID: period.productID!, purchaseDateMs: period.purchaseDateMs, expiresDateMs: period.expiresDateMs!,
            cancellationDateMs: period.cancellationDateMs, isTrialPeriod: period.isTrialPeriod ?? false,
            isInIntroOfferPeriod: false, receiptID: receipt.id, firstSeenRunID: runID, firstSeenAt: now - 40 * day)
    }

    static func snapshot(
        _ subscriptions: [StoredSubscription] = [], renewals: [AppleTransaction] = [], consecutiveFailures: Int = 0,
        receipt: ReceiptToVerify = ReceiptReconcilerTests.receipt
    ) -> ReceiptSnapshot {
        ReceiptSnapshot(
            receipt: receipt,
            subscriptions: Dictionary(uniqueKeysWithValues: subscriptions.map { ($0.originalTransactionID, $0) }),
            renewals: Dictionary(uniqueKeysWithValues: renewals.map { ($0.periodKey!, record(of: $0)) }),
            consecutiveFailures: consecutiveFailures)
    }

    /// What the store would hold after applying `update` on top of `snapshot`.
    static func applying(_ update: ReceiptUpdate, to snapshot: ReceiptSnapshot) -> ReceiptSnapshot {
        var next = snapshot
        for row in update.subscriptions { next.subscriptions[row.originalTransactionID] = row }
        for record in update.newRenewals { next.renewals[record.periodKey] = record }
        if let data = update.receipt?.newReceiptData { next.receipt.receiptData = data }
        return next
    }

    // Two monthly periods: the trial (expired) and the current one (active).
    static let trial = period(1, purchase: now - 40 * day, expires: now - 10 * day, trial: true)
    static let current = period(2, purchase: now - 10 * day, expires: now + 20 * day)

    // MARK: first answer, same answer, renewal

    @Test func aFirstAnswerInsertsTheSubscriptionAndItsRenewals() throws {
        // Given a receipt never verified before
        let snapshot = Self.snapshot()
        // When Apple answers with two periods of one subscription
        let update = reconciler.reconcile(Self.answer([Self.current, Self.trial]), snapshot: snapshot, nowMs: Self.now, runID: 42)
        // Then one active subscription is written
        let row = try #require(update.subscriptions.first)
        #expect(update.subscriptions.count == 1)
        #expect(row.originalTransactionID == Self.otid)
        #expect(row.userID == "user-1")
        #expect(row.receiptID == 7)
        #expect(row.productID == Self.monthly)
        #expect(row.status == .active)
        #expect(row.expiresDateMs == Self.now + 20 * Self.day)
        #expect(row.autoRenewStatus == true)
        #expect(row.environment == .production)
        #expect(row.firstSeenAt == Self.now)
        #expect(row.lastVerifiedAt == Self.now)
        #expect(row.flag == nil)
        // And both periods become renewal records first seen in this run
        #expect(Set(update.newRenewals.map(\.periodKey)) == [Self.trial.periodKey!, Self.current.periodKey!])
        #expect(update.newRenewals.allSatisfy { $0.firstSeenRunID == 42 && $0.userID == "user-1" && $0.receiptID == 7 })
        #expect(update.newRenewals.first { $0.periodKey == Self.trial.periodKey }?.isTrialPeriod == true)
        #expect(update.renewalCancellations.isEmpty)
        // And the receipt is verified, and the run item says updated: nothing → active
        let receipt = try #require(update.receipt)
        #expect(receipt.verificationState == "verified")
        #expect(receipt.verifiedAt == Self.now)
        #expect(receipt.attemptedAt == Self.now)
        #expect(receipt.appleStatus == 0)
        #expect(receipt.consecutiveFailures == 0)
        #expect(receipt.environment == .production)
        #expect(receipt.message == nil)
        #expect(update.runItem.outcome == .updated)
        #expect(update.runItem.oldStatus == nil)
        #expect(update.runItem.oldExpiresDateMs == nil)
        #expect(update.runItem.newStatus == .active)
        #expect(update.runItem.newExpiresDateMs == Self.now + 20 * Self.day)
        #expect(update.runItem.receiptID == 7)
        #expect(update.runItem.userID == "user-1")
    }

    @Test func theSameAnswerAgainIsUnchanged() throws {
        // Given the store after a first answer
        let answer = Self.answer([Self.current, Self.trial])
        let first = reconciler.reconcile(answer, snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        let afterFirst = Self.applying(first, to: Self.snapshot())
        let storedRow = try #require(afterFirst.subscriptions[Self.otid])
        // When the same answer comes a day later
        let later = Self.now + Self.day
        let second = reconciler.reconcile(answer, snapshot: afterFirst, nowMs: later, runID: 2)
        // Then nothing new is recorded and no reported field changes
        #expect(second.runItem.outcome == .unchanged)
        #expect(second.newRenewals.isEmpty)
        #expect(second.renewalCancellations.isEmpty)
        let row = try #require(second.subscriptions.first)
        #expect(row.hasSameReportedState(as: storedRow))
        #expect(row.updatedAt == storedRow.updatedAt)
        #expect(row.firstSeenAt == storedRow.firstSeenAt)
        #expect(row.lastVerifiedAt == later)
        #expect(second.receipt?.verificationState == "verified")
        #expect(second.receipt?.newReceiptData == nil)
        #expect(second.runItem.oldStatus == .active)
        #expect(second.runItem.newStatus == .active)
        #expect(second.runItem.oldExpiresDateMs == second.runItem.newExpiresDateMs)
    }

    @Test func aRenewalUpdatesTheSubscriptionAndAddsOneRenewal() throws {
        // Given a subscription stored in billing retry with both earlier periods recorded
        let storedRow = Self.stored(status: .billingRetry, expires: Self.current.expiresDateMs!)
        let snapshot = Self.snapshot([storedRow], renewals: [Self.trial, Self.current])
        // When Apple's answer holds a new transaction with a later expiry
        let renewal = Self.period(3, purchase: Self.now + 20 * Self.day, expires: Self.now + 50 * Self.day)
        let update = reconciler.reconcile(
            Self.answer([Self.trial, renewal, Self.current]), snapshot: snapshot, nowMs: Self.now + 21 * Self.day, runID: 9)
        // Then the subscription is active until the new expiry
        let row = try #require(update.subscriptions.first)
        #expect(row.status == .active)
        #expect(row.expiresDateMs == Self.now + 50 * Self.day)
        #expect(row.firstSeenAt == storedRow.firstSeenAt)
        #expect(row.updatedAt == Self.now + 21 * Self.day)
        // And exactly one renewal record is new
        #expect(update.newRenewals.map(\.periodKey) == [renewal.periodKey!])
        #expect(update.newRenewals.first?.firstSeenRunID == 9)
        #expect(update.newRenewals.first?.transactionID == renewal.transactionID)
        // And the run item shows old and new status and expiry
        #expect(update.runItem.outcome == .updated)
        #expect(update.runItem.oldStatus == .billingRetry)
        #expect(update.runItem.newStatus == .active)
        #expect(update.runItem.oldExpiresDateMs == Self.now + 20 * Self.day)
        #expect(update.runItem.newExpiresDateMs == Self.now + 50 * Self.day)
    }

    @Test func aChangeInAutoRenewAloneIsAnUpdate() throws {
        let first = reconciler.reconcile(Self.answer([Self.current]), snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        let afterFirst = Self.applying(first, to: Self.snapshot())
        let turnedOff = [PendingRenewal(originalTransactionID: Self.otid, productID: Self.monthly, autoRenewProductID: Self.monthly, autoRenewStatus: false)]
        let update = reconciler.reconcile(
            Self.answer([Self.current], renewals: turnedOff), snapshot: afterFirst, nowMs: Self.now + Self.hour, runID: 2)
        #expect(update.runItem.outcome == .updated)
        #expect(update.subscriptions.first?.autoRenewStatus == false)
        #expect(update.subscriptions.first?.updatedAt == Self.now + Self.hour)
        #expect(update.newRenewals.isEmpty)
    }

    // MARK: never downgrade

    @Test func anAnswerWithAnOlderExpiryKeepsTheStoredRowAndFlagsIt() throws {
        // Given a subscription stored as active until now + 20 days
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let snapshot = Self.snapshot([storedRow], renewals: [Self.trial])
        // When Apple's answer only holds the older trial period (its newest expiry is 10 days ago)
        let update = reconciler.reconcile(Self.answer([Self.trial]), snapshot: snapshot, nowMs: Self.now, runID: 3)
        // Then the stored row is kept as it was, with a flag
        let row = try #require(update.subscriptions.first)
        #expect(update.subscriptions.count == 1)
        #expect(row.status == .active)
        #expect(row.expiresDateMs == Self.now + 20 * Self.day)
        #expect(row.hasSameReportedState(as: storedRow))
        #expect(row.updatedAt == storedRow.updatedAt)
        let flag = try #require(row.flag)
        #expect(flag.contains(Self.otid))
        // And the receipt is flagged, with the reason in its message and the run item's
        let receipt = try #require(update.receipt)
        #expect(receipt.verificationState == "flagged")
        #expect(receipt.message?.contains(Self.otid) == true)
        #expect(update.runItem.message == receipt.message)
        #expect(update.runItem.newStatus == .active)
        #expect(update.runItem.newExpiresDateMs == Self.now + 20 * Self.day)
        #expect(update.runItem.outcome == .unchanged)
        // And a kept answer neither replaces the receipt data nor records periods of that subscription
        #expect(receipt.newReceiptData == nil)
        #expect(update.newRenewals.isEmpty)
        // And it is looked at again within about a day
        #expect(receipt.nextDueAt > Self.now)
        #expect(receipt.nextDueAt <= Self.now + Self.day)
    }

    @Test func aSandboxAnswerAboutAProductionSubscriptionIsNotApplied() throws {
        // Given a Production subscription
        let storedRow = Self.stored(status: .expired, expires: Self.now - 5 * Self.day, environment: .production)
        let snapshot = Self.snapshot([storedRow])
        // When a Sandbox answer says it is active with a later expiry
        let update = reconciler.reconcile(
            Self.answer([Self.current], environment: .sandbox), snapshot: snapshot, nowMs: Self.now, runID: 3)
        // Then the stored row stays (expired, Production) and is flagged
        let row = try #require(update.subscriptions.first)
        #expect(row.status == .expired)
        #expect(row.expiresDateMs == Self.now - 5 * Self.day)
        #expect(row.environment == .production)
        #expect(row.flag?.contains("Sandbox") == true)
        #expect(update.receipt?.verificationState == "flagged")
        #expect(update.newRenewals.isEmpty)
        #expect(update.runItem.newStatus == .expired)
        #expect(update.runItem.outcome == .unchanged)
    }

    @Test func aProductionAnswerAboutASandboxSubscriptionIsApplied() throws {
        let storedRow = Self.stored(status: .expired, expires: Self.now - 5 * Self.day, environment: .sandbox)
        let update = reconciler.reconcile(
            Self.answer([Self.current], environment: .production), snapshot: Self.snapshot([storedRow]), nowMs: Self.now, runID: 3)
        #expect(update.subscriptions.first?.status == .active)
        #expect(update.subscriptions.first?.environment == .production)
        #expect(update.receipt?.verificationState == "verified")
        #expect(update.runItem.outcome == .updated)
    }

    @Test func anUpgradeToAShorterPeriodIsAppliedEvenThoughTheNewExpiryIsEarlier() throws {
        // Given a yearly subscription stored as active until now + 300 days
        let yearly = "com.example.basic.yearly"
        let premium = "com.example.premium.monthly"
        let yearlyPeriod = Self.period(1, product: yearly, purchase: Self.now - 65 * Self.day, expires: Self.now + 300 * Self.day)
        let storedRow = Self.stored(product: yearly, status: .active, expires: Self.now + 300 * Self.day)
        let snapshot = Self.snapshot([storedRow], renewals: [yearlyPeriod])
        // When the user upgraded to a monthly premium product: Apple cancels the yearly period with
        // is_upgraded and adds the premium period, which ends before the yearly one would have
        var cancelledYearly = yearlyPeriod
        cancelledYearly.cancellationDateMs = Self.now - Self.day
        cancelledYearly.isUpgraded = true
        let premiumPeriod = Self.period(2, product: premium, purchase: Self.now - Self.day, expires: Self.now + 29 * Self.day)
        let renewals = [PendingRenewal(originalTransactionID: Self.otid, productID: premium, autoRenewProductID: premium, autoRenewStatus: true)]
        let update = reconciler.reconcile(
            Self.answer([cancelledYearly, premiumPeriod], renewals: renewals), snapshot: snapshot, nowMs: Self.now, runID: 4)
        // Then the answer is not a downgrade (Apple's newest expiry is the stored one): the
        // subscription now is the premium product, active until its own expiry (docs/reports.md,
        // `subscriptions`: "after an upgrade, the new one"), and nothing is flagged
        let row = try #require(update.subscriptions.first)
        #expect(row.productID == premium)
        #expect(row.status == .active)
        #expect(row.expiresDateMs == Self.now + 29 * Self.day)
        #expect(row.flag == nil)
        #expect(update.receipt?.verificationState == "verified")
        #expect(update.newRenewals.map(\.periodKey) == [premiumPeriod.periodKey!])
        #expect(update.runItem.outcome == .updated)
    }

    // MARK: answers without subscription entries

    @Test func statusZeroWithoutEntriesKeepsTheSubscriptionsThisReceiptHadAndFlags() throws {
        // Given a receipt that produced two subscriptions
        let first = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let second = Self.stored(otid: "430009999999999", status: .expired, expires: Self.now - 20 * Self.day)
        let snapshot = Self.snapshot([first, second])
        // When Apple answers status 0 with no subscription entries at all
        let update = reconciler.reconcile(Self.answer([], renewals: []), snapshot: snapshot, nowMs: Self.now, runID: 5)
        // Then both are written back as they were, flagged
        #expect(update.subscriptions.count == 2)
        for row in update.subscriptions {
            let before = try #require(snapshot.subscriptions[row.originalTransactionID])
            #expect(row.hasSameReportedState(as: before))
            #expect(row.updatedAt == before.updatedAt)
            #expect(row.flag != nil)
        }
        #expect(update.receipt?.verificationState == "flagged")
        #expect(update.receipt?.message != nil)
        #expect(update.receipt?.newReceiptData == nil)
        #expect(update.newRenewals.isEmpty)
        #expect(update.runItem.outcome == .unchanged)
        #expect(update.runItem.newStatus == .active)
    }

    @Test func statusZeroWithOnlyNonSubscriptionEntriesCountsAsNoEntries() throws {
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let consumable = AppleTransaction(
            transactionID: "5", originalTransactionID: "5", productID: "coins.100", purchaseDateMs: Self.now - Self.day, expiresDateMs: nil)
        let update = reconciler.reconcile(
            Self.answer([consumable], renewals: []), snapshot: Self.snapshot([storedRow]), nowMs: Self.now, runID: 5)
        #expect(update.subscriptions.map(\.expiresDateMs) == [storedRow.expiresDateMs])
        #expect(update.subscriptions.first?.flag != nil)
        #expect(update.receipt?.verificationState == "flagged")
        #expect(update.newRenewals.isEmpty)
    }

    @Test func statusZeroWithoutEntriesForAReceiptThatNeverHadAnyIsUnchanged() throws {
        // Given a receipt without subscriptions (the user has one from another receipt)
        let otherReceipts = Self.stored(otid: "111", status: .active, expires: Self.now + 5 * Self.day, receiptID: 99)
        let snapshot = Self.snapshot([otherReceipts])
        // When Apple answers status 0 with nothing in it
        let update = reconciler.reconcile(
            Self.answer([], renewals: [], latestReceipt: nil), snapshot: snapshot, nowMs: Self.now, runID: 5)
        // Then nothing is written, nothing is flagged, and the receipt rests for about a month
        #expect(update.subscriptions.isEmpty)
        #expect(update.newRenewals.isEmpty)
        #expect(update.runItem.outcome == .unchanged)
        #expect(update.runItem.message == nil)
        let receipt = try #require(update.receipt)
        #expect(receipt.verificationState == "verified")
        #expect(receipt.message == nil)
        #expect(receipt.verifiedAt == Self.now)
        #expect(receipt.nextDueAt > Self.now + 29 * Self.day)
        #expect(receipt.nextDueAt <= Self.now + 30 * Self.day)
    }

    // MARK: outcomes without an answer

    @Test func aFailureChangesNoSubscriptionAndStaysDue() throws {
        // Given a stored subscription and two failures already
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let snapshot = Self.snapshot([storedRow], consecutiveFailures: 2)
        // When the verification fails
        let failure = VerificationFailure(appleStatus: 21005, environment: .production, message: "Apple answered 21005")
        let update = reconciler.reconcile(.failed(failure), snapshot: snapshot, nowMs: Self.now, runID: 6)
        // Then nothing about subscriptions or renewals is written
        #expect(update.subscriptions.isEmpty)
        #expect(update.newRenewals.isEmpty)
        #expect(update.renewalCancellations.isEmpty)
        // And the receipt counts one more failure and is due now
        let receipt = try #require(update.receipt)
        #expect(receipt.consecutiveFailures == 3)
        #expect(receipt.nextDueAt == Self.now)
        #expect(receipt.verificationState == "failed")
        #expect(receipt.verifiedAt == nil)
        #expect(receipt.newReceiptData == nil)
        #expect(receipt.appleStatus == 21005)
        #expect(receipt.message == "Apple answered 21005")
        #expect(update.runItem.outcome == .failed)
        #expect(update.runItem.oldStatus == .active)
        #expect(update.runItem.newStatus == .active)
        #expect(update.runItem.oldExpiresDateMs == update.runItem.newExpiresDateMs)
    }

    @Test("21003 and 21010 change no subscription and mark the receipt", arguments: [
        (VerificationOutcome.invalid(appleStatus: 21003, environment: .production), "invalid", RunItemOutcome.invalid, 21003),
        (.accountGone(environment: .production), "account_gone", .accountGone, 21010),
        (.accountGone(environment: nil), "account_gone", .accountGone, 21010),
    ])
    func definitiveRejections(outcome: VerificationOutcome, state: String, itemOutcome: RunItemOutcome, status: Int) throws {
        // Given a stored active subscription
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let snapshot = Self.snapshot([storedRow], consecutiveFailures: 4)
        // When Apple rejects the receipt definitively
        let update = reconciler.reconcile(outcome, snapshot: snapshot, nowMs: Self.now, runID: 7)
        // Then no subscription or renewal changes
        #expect(update.subscriptions.isEmpty)
        #expect(update.newRenewals.isEmpty)
        #expect(update.renewalCancellations.isEmpty)
        // And the receipt is marked, verified now, and next due in about 30 days
        let receipt = try #require(update.receipt)
        #expect(receipt.verificationState == state)
        #expect(receipt.appleStatus == status)
        #expect(receipt.verifiedAt == Self.now)
        #expect(receipt.consecutiveFailures == 0)
        #expect(receipt.newReceiptData == nil)
        #expect(receipt.nextDueAt > Self.now + 29 * Self.day)
        #expect(receipt.nextDueAt <= Self.now + 30 * Self.day)
        #expect(update.runItem.outcome == itemOutcome)
        #expect(update.runItem.appleStatus == status)
        #expect(update.runItem.newStatus == .active)
        #expect(update.runItem.newExpiresDateMs == Self.now + 20 * Self.day)
    }

    @Test("a stopped run skips the receipt and leaves its row alone", arguments: [
        RunStoppingProblem.sharedSecretMismatch, .requestRejected,
    ])
    func stopRun(problem: RunStoppingProblem) {
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let update = reconciler.reconcile(
            .stopRun(problem), snapshot: Self.snapshot([storedRow], consecutiveFailures: 1), nowMs: Self.now, runID: 8)
        #expect(update.runItem.outcome == .skipped)
        #expect(update.runItem.appleStatus == problem.appleStatus)
        #expect(update.receipt == nil)
        #expect(update.subscriptions.isEmpty)
        #expect(update.newRenewals.isEmpty)
        #expect(update.renewalCancellations.isEmpty)
    }

    // MARK: refunds

    @Test func aRefundOfAStoredPeriodFillsInItsCancellationInsteadOfAddingARenewal() throws {
        // Given the current period stored, not cancelled
        let storedRow = Self.stored(status: .active, expires: Self.current.expiresDateMs!)
        let snapshot = Self.snapshot([storedRow], renewals: [Self.trial, Self.current])
        // When Apple reports that period refunded
        var refunded = Self.current
        refunded.cancellationDateMs = Self.now - 2 * Self.day
        refunded.cancellationReason = "1"
        let update = reconciler.reconcile(Self.answer([Self.trial, refunded]), snapshot: snapshot, nowMs: Self.now, runID: 10)
        // Then the stored period gets the cancellation date and no renewal is added
        #expect(
            update.renewalCancellations
                == [RenewalCancellation(periodKey: Self.current.periodKey!, cancellationDateMs: Self.now - 2 * Self.day)])
        #expect(update.newRenewals.isEmpty)
        // And the subscription is refunded, keeping Apple's expiry
        let row = try #require(update.subscriptions.first)
        #expect(row.status == .refunded)
        #expect(row.expiresDateMs == Self.current.expiresDateMs)
        #expect(row.cancellationDateMs == Self.now - 2 * Self.day)
        #expect(update.runItem.outcome == .updated)
        #expect(update.runItem.oldStatus == .active)
        #expect(update.runItem.newStatus == .refunded)
    }

    @Test func aRefundAlreadyRecordedIsNotRecordedAgain() throws {
        var refunded = Self.current
        refunded.cancellationDateMs = Self.now - 2 * Self.day
        var storedRow = Self.stored(status: .refunded, expires: Self.current.expiresDateMs!)
        storedRow.cancellationDateMs = refunded.cancellationDateMs
        storedRow.autoRenewStatus = true
        let snapshot = Self.snapshot([storedRow], renewals: [Self.trial, refunded])
        let update = reconciler.reconcile(Self.answer([Self.trial, refunded]), snapshot: snapshot, nowMs: Self.now, runID: 11)
        #expect(update.renewalCancellations.isEmpty)
        #expect(update.newRenewals.isEmpty)
        #expect(update.runItem.outcome == .unchanged)
    }

    // MARK: latest_receipt

    @Test("latest_receipt replaces the stored data only when it differs", arguments: [
        ("UkVDRUlQVC1ORVc=", "UkVDRUlQVC1ORVc=" as String?),
        ("UkVDRUlQVC1PTEQ=", nil),
    ])
    func latestReceipt(latest: String, expected: String?) {
        let update = reconciler.reconcile(
            Self.answer([Self.current], latestReceipt: latest), snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        #expect(update.receipt?.newReceiptData == expected)
    }

    @Test func noLatestReceiptKeepsTheStoredData() {
        let update = reconciler.reconcile(
            Self.answer([Self.current], latestReceipt: nil), snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        #expect(update.receipt?.newReceiptData == nil)
        #expect(update.receipt?.verificationState == "verified")
    }

    // MARK: product filter

    @Test func theProductFilterIgnoresOtherProducts() throws {
        // Given a reconciler limited to the monthly product
        let filtered = ReceiptReconciler(products: [Self.monthly])
        // When the answer also holds another app product with its own subscription
        let other = Self.period(1, otid: "990000000000001", product: "com.example.magazine.weekly", purchase: Self.now - Self.day, expires: Self.now + 6 * Self.day)
        let update = filtered.reconcile(
            Self.answer([Self.current, other, Self.trial]), snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        // Then only the monthly subscription and its periods are written
        #expect(update.subscriptions.map(\.originalTransactionID) == [Self.otid])
        #expect(update.subscriptions.map(\.productID) == [Self.monthly])
        #expect(Set(update.newRenewals.map(\.productID)) == [Self.monthly])
        #expect(update.newRenewals.count == 2)
        // And without the filter, both subscriptions would be
        let unfiltered = reconciler.reconcile(
            Self.answer([Self.current, other, Self.trial]), snapshot: Self.snapshot(), nowMs: Self.now, runID: 1)
        #expect(Set(unfiltered.subscriptions.map(\.originalTransactionID)) == [Self.otid, "990000000000001"])
    }

    // MARK: upgrade leftovers

    @Test func whenEveryEntryIsUpgradeCancelledTheStoredStateIsKeptAndFlagged() throws {
        // Given a stored active subscription
        let storedRow = Self.stored(status: .active, expires: Self.now + 20 * Self.day)
        let snapshot = Self.snapshot([storedRow], renewals: [Self.trial])
        // When the answer holds only upgrade-cancelled entries (the replacement is missing)
        var leftover = Self.current
        leftover.cancellationDateMs = Self.now - Self.day
        leftover.isUpgraded = true
        var oldLeftover = Self.trial
        oldLeftover.cancellationDateMs = Self.now - 30 * Self.day
        oldLeftover.isUpgraded = true
        let update = reconciler.reconcile(Self.answer([leftover, oldLeftover]), snapshot: snapshot, nowMs: Self.now, runID: 12)
        // Then the stored row is written back unchanged, with a flag
        let row = try #require(update.subscriptions.first)
        #expect(update.subscriptions.count == 1)
        #expect(row.hasSameReportedState(as: storedRow))
        #expect(row.status == .active)
        #expect(row.expiresDateMs == Self.now + 20 * Self.day)
        #expect(row.flag != nil)
        #expect(update.receipt?.verificationState == "flagged")
        #expect(update.receipt?.newReceiptData == nil)
        // And none of its periods are recorded from that answer
        #expect(update.newRenewals.isEmpty)
        #expect(update.renewalCancellations.isEmpty)
        #expect(update.runItem.outcome == .unchanged)
    }

    // MARK: purity

    @Test func theSameInputsGiveTheSameUpdate() {
        let snapshot = Self.snapshot([Self.stored(status: .billingRetry, expires: Self.now - Self.day)], renewals: [Self.trial])
        let answer = Self.answer([Self.current, Self.trial])
        let a = reconciler.reconcile(answer, snapshot: snapshot, nowMs: Self.now, runID: 3)
        let b = reconciler.reconcile(answer, snapshot: snapshot, nowMs: Self.now, runID: 3)
        #expect(a == b)
    }
}
