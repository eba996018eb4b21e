import Testing
@testable import SubRecon

private let now: Int64 = 1_795_329_964_000
private let day = DuePolicy.day
private let hour = DuePolicy.hour

private func makeSubscription(_ status: SubscriptionStatus, expires: Int64, otid: String = "1") -> StoredSubscription {
    StoredSubscription(
        userID: "u", originalTransactionID: otid, receiptID: 1, productID: "p", status: status, expiresDateMs: expires,
        autoRenewStatus: nil, autoRenewProductID: nil, expirationIntent: nil, gracePeriodExpiresDateMs: nil,
        isInBillingRetry: nil, cancellationDateMs: nil, ownershipType: nil, environment: .production,
        lastVerifiedAt: now, firstSeenAt: now, updatedAt: now, flag: nil)
}

/// When a receipt is next due, from its subscriptions after an answer.
@Suite("DuePolicy")
struct DuePolicyTests {
    let policy = DuePolicy.standard

    @Test func theStandardPolicyHasTheDocumentedIntervals() {
        #expect(policy.maxAgeMs == 7 * day)
        #expect(policy.afterExpiryMs == hour)
        #expect(policy.retryingMs == day)
        #expect(policy.lapsedMs == 30 * day)
        #expect(policy.cronSlackMs == 3 * hour)
    }

    @Test func anActiveSubscriptionFarFromExpiryIsDueInAWeekLessTheCronSlack() {
        // Given an active subscription that runs for three more weeks
        let subscription = makeSubscription(.active, expires: now + 21 * day)
        // When the next due time is computed
        let next = policy.nextDue(subscriptions: [subscription], flagged: false, nowMs: now)
        // Then it is a week from now, less the slack for an earlier cron start
        #expect(next == now + 7 * day - 3 * hour)
    }

    @Test("an active subscription is due an hour after it expires, when that comes first", arguments: [
        Int64(2 * 3_600_000), Int64(86_400_000), Int64(3 * 86_400_000), Int64(6 * 86_400_000),
    ])
    func activeNearExpiry(expiresIn: Int64) {
        let expires = now + expiresIn
        let next = policy.nextDue(subscriptions: [makeSubscription(.active, expires: expires)], flagged: false, nowMs: now)
        #expect(next == expires + hour)
    }

    @Test("grace period and billing retry are looked at about daily", arguments: [
        SubscriptionStatus.gracePeriod, .billingRetry,
    ])
    func retrying(status: SubscriptionStatus) {
        let next = policy.nextDue(
            subscriptions: [makeSubscription(status, expires: now - day)], flagged: false, nowMs: now)
        #expect(next == now + day - 3 * hour)
        #expect(next > now + 12 * hour)
        #expect(next <= now + day)
    }

    @Test("lapsed subscriptions rest about a month", arguments: [SubscriptionStatus.expired, .refunded])
    func lapsed(status: SubscriptionStatus) {
        let next = policy.nextDue(
            subscriptions: [makeSubscription(status, expires: now - 40 * day)], flagged: false, nowMs: now)
        #expect(next == now + 30 * day - 3 * hour)
    }

    @Test func aReceiptWithoutSubscriptionsRestsAboutAMonth() {
        let next = policy.nextDue(subscriptions: [], flagged: false, nowMs: now)
        #expect(next == now + 30 * day - 3 * hour)
    }

    @Test("a flagged receipt is looked at again within about a day", arguments: [
        [], [makeSubscription(.expired, expires: now - 40 * day)],
        [makeSubscription(.active, expires: now + 200 * day)],
    ])
    func flagged(subscriptions: [StoredSubscription]) {
        let next = policy.nextDue(subscriptions: subscriptions, flagged: true, nowMs: now)
        #expect(next == now + day - 3 * hour)
    }

    @Test func aFlaggedReceiptWhoseSubscriptionExpiresSoonerIsDueAtThatExpiry() {
        let expires = now + 2 * hour
        let next = policy.nextDue(subscriptions: [makeSubscription(.active, expires: expires)], flagged: true, nowMs: now)
        #expect(next == expires + hour)
    }

    @Test("the next due time is never in the past", arguments: [
        Int64(-10 * 86_400_000), Int64(-2 * 3_600_000), Int64(-3_600_000), Int64(0),
    ])
    func neverInThePast(expiresIn: Int64) {
        // Given an "active" subscription whose expiry is already behind us (a kept, stale row)
        let subscription = makeSubscription(.active, expires: now + expiresIn)
        // When the next due time is computed, flagged or not
        for flagged in [false, true] {
            let next = policy.nextDue(subscriptions: [subscription], flagged: flagged, nowMs: now)
            // Then it is strictly after now
            #expect(next >= now + 1)
            #expect(next == max(now + expiresIn + hour, now + 1))
        }
    }

    @Test func aPolicyWithMoreSlackThanItsIntervalsStillSchedulesAfterNow() {
        var policy = DuePolicy()
        policy.cronSlackMs = 40 * day
        let next = policy.nextDue(
            subscriptions: [makeSubscription(.expired, expires: now - day)], flagged: false, nowMs: now)
        #expect(next == now + 1)
    }

    @Test("several subscriptions: the earliest need wins", arguments: [
        ([makeSubscription(.active, expires: now + 20 * day, otid: "a"),
          makeSubscription(.billingRetry, expires: now - day, otid: "b")], now + day - 3 * hour),
        ([makeSubscription(.expired, expires: now - 9 * day, otid: "a"),
          makeSubscription(.active, expires: now + 2 * day, otid: "b")], now + 2 * day + hour),
        ([makeSubscription(.refunded, expires: now - 9 * day, otid: "a"),
          makeSubscription(.expired, expires: now - 90 * day, otid: "b")], now + 30 * day - 3 * hour),
        ([makeSubscription(.active, expires: now + 5 * day, otid: "a"),
          makeSubscription(.active, expires: now + 3 * day, otid: "b"),
          makeSubscription(.gracePeriod, expires: now - hour, otid: "c")], now + day - 3 * hour),
    ])
    func severalSubscriptions(subscriptions: [StoredSubscription], expected: Int64) {
        #expect(policy.nextDue(subscriptions: subscriptions, flagged: false, nowMs: now) == expected)
        #expect(policy.nextDue(subscriptions: subscriptions.reversed(), flagged: false, nowMs: now) == expected)
    }

    @Test func afterAFailureTheReceiptIsDueNow() {
        #expect(policy.nextDueAfterFailure(nowMs: now) == now)
    }

    @Test func afterAnInvalidOrGoneAnswerTheReceiptRestsAboutAMonth() {
        #expect(policy.nextDueAfterDefinitiveRejection(nowMs: now) == now + 30 * day - 3 * hour)
    }
}
