@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

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

/// The standard policy without the spread of the maximum-age re-checks: the exact intervals.
private let unspread: DuePolicy = {
    var policy = DuePolicy()
    policy.spreadsMaxAgeChecks = false
    return policy
}()

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
        #expect(policy.spreadsMaxAgeChecks)
        #expect(policy.maxAgeCycleMs == 7 * day - 3 * hour)
    }

    @Test func anActiveSubscriptionFarFromExpiryIsDueInAWeekLessTheCronSlack() {
        // Given an active subscription that runs for three more weeks
        let subscription = makeSubscription(.active, expires: now + 21 * day)
        // When the next due time is computed without the spread
        let next = unspread.nextDue(receiptID: 1, subscriptions: [subscription], flagged: false, nowMs: now)
        // Then it is a week from now, less the slack for an earlier cron start
        #expect(next == now + 7 * day - 3 * hour)
        // And with the spread it is the receipt's own moment of the cycle, no later
        let spread = policy.nextDue(receiptID: 1, subscriptions: [subscription], flagged: false, nowMs: now)
        #expect(spread == policy.maxAgeCheck(receiptID: 1, nowMs: now))
        #expect(spread > now)
        #expect(spread <= next)
    }

    @Test("an active subscription is due an hour after it expires, when that comes first", arguments: [
        Int64(2 * 3_600_000), Int64(86_400_000), Int64(3 * 86_400_000), Int64(6 * 86_400_000),
    ])
    func activeNearExpiry(expiresIn: Int64) {
        let expires = now + expiresIn
        let subscriptions = [makeSubscription(.active, expires: expires)]
        #expect(unspread.nextDue(receiptID: 1, subscriptions: subscriptions, flagged: false, nowMs: now) == expires + hour)
        // With the spread: whichever comes first of that hour and the receipt's re-check.
        for receiptID in Int64(1)...40 {
            let next = policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: now)
            #expect(next == min(expires + hour, policy.maxAgeCheck(receiptID: receiptID, nowMs: now)))
        }
    }

    @Test("grace period and billing retry are looked at about daily", arguments: [
        SubscriptionStatus.gracePeriod, .billingRetry,
    ])
    func retrying(status: SubscriptionStatus) {
        let next = policy.nextDue(
            receiptID: 1, subscriptions: [makeSubscription(status, expires: now - day)], flagged: false, nowMs: now)
        #expect(next == now + day - 3 * hour)
        #expect(next > now + 12 * hour)
        #expect(next <= now + day)
    }

    @Test("lapsed subscriptions rest about a month", arguments: [SubscriptionStatus.expired, .refunded])
    func lapsed(status: SubscriptionStatus) {
        // The spread is for entitled receipts only: whatever the receipt, a lapsed one rests a month.
        for receiptID in Int64(1)...20 {
            let next = policy.nextDue(
                receiptID: receiptID, subscriptions: [makeSubscription(status, expires: now - 40 * day)], flagged: false,
                nowMs: now)
            #expect(next == now + 30 * day - 3 * hour)
        }
    }

    @Test func aReceiptWithoutSubscriptionsRestsAboutAMonth() {
        let next = policy.nextDue(receiptID: 1, subscriptions: [], flagged: false, nowMs: now)
        #expect(next == now + 30 * day - 3 * hour)
    }

    @Test("a flagged receipt is looked at again within about a day", arguments: [
        [], [makeSubscription(.expired, expires: now - 40 * day)],
        [makeSubscription(.active, expires: now + 200 * day)],
    ])
    func flagged(subscriptions: [StoredSubscription]) {
        let next = unspread.nextDue(receiptID: 1, subscriptions: subscriptions, flagged: true, nowMs: now)
        #expect(next == now + day - 3 * hour)
        for receiptID in Int64(1)...20 {
            let spread = policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: true, nowMs: now)
            #expect(spread > now)
            #expect(spread <= next)
        }
    }

    @Test func aFlaggedReceiptWhoseSubscriptionExpiresSoonerIsDueAtThatExpiry() {
        let expires = now + 2 * hour
        let next = unspread.nextDue(
            receiptID: 1, subscriptions: [makeSubscription(.active, expires: expires)], flagged: true, nowMs: now)
        #expect(next == expires + hour)
    }

    @Test("the next due time is never in the past", arguments: [
        Int64(-10 * 86_400_000), Int64(-2 * 3_600_000), Int64(-3_600_000), Int64(0),
    ])
    func neverInThePast(expiresIn: Int64) {
        // Given an "active" subscription whose expiry is already behind us (a kept, stale row)
        let subscription = makeSubscription(.active, expires: now + expiresIn)
        // When the next due time is computed, flagged or not, spread or not
        for flagged in [false, true] {
            let next = unspread.nextDue(receiptID: 1, subscriptions: [subscription], flagged: flagged, nowMs: now)
            // Then it is strictly after now
            #expect(next >= now + 1)
            #expect(next == max(now + expiresIn + hour, now + 1))
            for receiptID in Int64(1)...20 {
                let spread = policy.nextDue(
                    receiptID: receiptID, subscriptions: [subscription], flagged: flagged, nowMs: now)
                #expect(spread >= now + 1)
                #expect(spread <= next)
            }
        }
    }

    @Test func aPolicyWithMoreSlackThanItsIntervalsStillSchedulesAfterNow() {
        var policy = DuePolicy()
        policy.cronSlackMs = 40 * day
        let next = policy.nextDue(
            receiptID: 1, subscriptions: [makeSubscription(.expired, expires: now - day)], flagged: false, nowMs: now)
        #expect(next == now + 1)
        // Its re-check cycle is empty: nothing to spread over, and an active receipt is due at once.
        #expect(policy.maxAgeOffsetMs(receiptID: 7) == 0)
        let active = policy.nextDue(
            receiptID: 7, subscriptions: [makeSubscription(.active, expires: now + 90 * day)], flagged: false, nowMs: now)
        #expect(active == now + 1)
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
        #expect(unspread.nextDue(receiptID: 1, subscriptions: subscriptions, flagged: false, nowMs: now) == expected)
        #expect(unspread.nextDue(receiptID: 1, subscriptions: subscriptions.reversed(), flagged: false, nowMs: now) == expected)
        // With the spread, an active subscription's re-check is one more need: the earliest still wins.
        let hasActive = subscriptions.contains { $0.status == .active }
        for receiptID in Int64(1)...20 {
            let spreadExpected = hasActive ? min(expected, policy.maxAgeCheck(receiptID: receiptID, nowMs: now)) : expected
            #expect(policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: now) == spreadExpected)
            #expect(
                policy.nextDue(receiptID: receiptID, subscriptions: subscriptions.reversed(), flagged: false, nowMs: now)
                    == spreadExpected)
        }
    }

    @Test func afterAFailureTheReceiptIsDueNow() {
        #expect(policy.nextDueAfterFailure(nowMs: now) == now)
    }

    @Test func afterAnInvalidOrGoneAnswerTheReceiptRestsAboutAMonth() {
        #expect(policy.nextDueAfterDefinitiveRejection(nowMs: now) == now + 30 * day - 3 * hour)
    }
}

/// The spread of the maximum-age re-checks: a per-receipt offset in a cycle of 7 days less the
/// cron slack, only ever bringing a re-check forward.
@Suite("DuePolicy spread")
struct DuePolicySpreadTests {
    let policy = DuePolicy.standard
    static let receiptIDs: [Int64] = [0, 1, 2, 3, 42, 512, 513, 1_000_000, -1, Int64.max, Int64.min]

    @Test("a receipt's offset lies within the cycle", arguments: receiptIDs)
    func offsetWithinTheCycle(receiptID: Int64) {
        let offset = policy.maxAgeOffsetMs(receiptID: receiptID)
        #expect(offset >= 0)
        #expect(offset < policy.maxAgeCycleMs)
        #expect(offset == unspread.maxAgeOffsetMs(receiptID: receiptID), "the offset is the receipt's, whatever the switch")
    }

    @Test func theOffsetIsSplitMix64OfTheReceiptID() {
        // The reference SplitMix64 sequence for seed 0 starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4:
        // the offsets (and so every stored schedule) are the same from one build or machine to the next.
        #expect(DuePolicy.mix(0) == 0xE220_A839_7B1D_CDAF)
        #expect(DuePolicy.mix(0x9E37_79B9_7F4A_7C15) == 0x6E78_9E6A_A1B9_65F4)
        #expect(policy.maxAgeOffsetMs(receiptID: 0) == Int64(0xE220_A839_7B1D_CDAF % UInt64(policy.maxAgeCycleMs)))
    }

    @Test("the same receipt gets the same re-check, from any policy value", arguments: receiptIDs)
    func deterministic(receiptID: Int64) {
        let other = DuePolicy()
        let subscriptions = [makeSubscription(.active, expires: now + 60 * day)]
        for nowMs in [now, now + 5 * hour, now + 13 * day] {
            let first = policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: nowMs)
            #expect(first == other.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: nowMs))
            #expect(first == policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: nowMs))
        }
    }

    @Test func theReconcilerSchedulesEachReceiptByItsOwnID() {
        // Given the same answer (a yearly subscription, 300 days to go) for receipts of different ids
        typealias R = ReceiptReconcilerTests
        let answer = R.answer([R.period(1, purchase: now - 65 * day, expires: now + 300 * day)])
        var dues: Set<Int64> = []
        for id in Int64(1)...20 {
            let receipt = ReceiptToVerify(id: id, userID: R.receipt.userID, receiptData: R.receipt.receiptData, environment: .production)
            // When each is reconciled
            let update = R().reconciler.reconcile(answer, snapshot: R.snapshot(receipt: receipt), nowMs: now, runID: 1)
            // Then each is due at its own re-check
            let due = update.receipt?.nextDueAt
            #expect(due == policy.maxAgeCheck(receiptID: id, nowMs: now))
            if let due { dues.insert(due) }
        }
        #expect(dues.count == 20)
    }

    @Test("neighbouring receipts get different offsets")
    func neighboursDiffer() {
        let offsets = Set((Int64(1)...1_000).map { policy.maxAgeOffsetMs(receiptID: $0) / hour })
        // 1,000 receipts over the cycle's 165 hours: nearly every hour is someone's.
        #expect(offsets.count > 150)
    }

    @Test("the re-check is the receipt's moment of the cycle, within the bound", arguments: receiptIDs)
    func withinTheBound(receiptID: Int64) {
        let cycle = policy.maxAgeCycleMs
        let offset = policy.maxAgeOffsetMs(receiptID: receiptID)
        for nowMs in [now, now + 1, now + 17 * hour, now + cycle - 1, now + 3 * day + 1_234, 0, -5 * day] {
            let check = policy.maxAgeCheck(receiptID: receiptID, nowMs: nowMs)
            #expect(check > nowMs)
            #expect(check <= nowMs + 7 * day - 3 * hour)
            #expect(((check - offset) % cycle + cycle) % cycle == 0)
            #expect(unspread.maxAgeCheck(receiptID: receiptID, nowMs: nowMs) == nowMs + 7 * day - 3 * hour)
        }
    }

    /// Runs a cron every `cadenceMs` from `now` for `weeks`, checking one entitled receipt (expiry
    /// far away) whenever it is due; returns the times it was checked.
    private func checks(receiptID: Int64, policy: DuePolicy, cadenceMs: Int64, weeks: Int64) -> [Int64] {
        let subscriptions = [makeSubscription(.active, expires: now + 400 * day)]
        var due = now
        var times: [Int64] = []
        var run = now
        while run < now + weeks * 7 * day {
            if run >= due {
                times.append(run)
                due = policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: run)
            }
            run += cadenceMs
        }
        return times
    }

    @Test("no receipt waits longer than 7 days, and after its first re-check it keeps its own weekly rhythm",
          arguments: [DuePolicy.day, DuePolicy.hour])
    func neverLaterThanTheBound(cadenceMs: Int64) {
        for receiptID in Int64(1)...60 {
            let times = checks(receiptID: receiptID, policy: policy, cadenceMs: cadenceMs, weeks: 20)
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps.count >= 19)
            // The documented bound: at most 7 days after the last check.
            #expect(gaps.allSatisfy { $0 <= 7 * day }, "receipt \(receiptID): \(gaps.map { $0 / hour }) h")
            // The spread brings the first re-check forward; later ones are a whole cycle apart
            // (less at most one cron interval), so it costs no extra checks after that.
            #expect(gaps.dropFirst().allSatisfy { $0 > policy.maxAgeCycleMs - cadenceMs }, "receipt \(receiptID)")
            // Without the spread: every gap is the whole 7 nights (or the cycle, hourly).
            let plain = checks(receiptID: receiptID, policy: unspread, cadenceMs: cadenceMs, weeks: 20)
            #expect(zip(plain.dropFirst(), plain).allSatisfy { $0 - $1 == (cadenceMs == day ? 7 * day : policy.maxAgeCycleMs) })
            #expect(times.count <= plain.count + 1 + 20 / 8, "at most the early first check and one per 8 cycles' drift")
        }
    }

    /// Checks per night over `nights` nightly runs for `count` receipts imported together (all due
    /// at the first run, night 0).
    private func nightlyChecks(count: Int64, policy: DuePolicy, nights: Int) -> [Int] {
        let subscriptions = [makeSubscription(.active, expires: now + 400 * day)]
        var perNight = [Int](repeating: 0, count: nights)
        for receiptID in 1...count {
            var due = now
            for night in 0..<nights {
                let run = now + Int64(night) * day
                guard run >= due else { continue }
                perNight[night] += 1
                due = policy.nextDue(receiptID: receiptID, subscriptions: subscriptions, flagged: false, nowMs: run)
            }
        }
        return perNight
    }

    @Test("a catalogue imported on one day is re-checked evenly over the following nights", arguments: [
        (DuePolicy.standard, 1.25), (unspread, 7.0),
    ])
    func spreadAcrossACatalogue(policy: DuePolicy, peakOverMean: Double) {
        let count: Int64 = 3_500
        let perNight = nightlyChecks(count: count, policy: policy, nights: 57)
        #expect(perNight[0] == Int(count), "everything imported is checked at the first run")
        let later = perNight.dropFirst()
        let mean = Double(later.reduce(0, +)) / Double(later.count)
        let peak = Double(later.max() ?? 0)
        if policy.spreadsMaxAgeChecks {
            // Every night of the first cycle takes its share (night 7 a little less: the cycle is 21 h short of it).
            for night in 1...7 {
                #expect(Double(perNight[night]) > 0.75 * Double(count) / 7, "night \(night): \(perNight[night])")
            }
            #expect(peak / mean <= peakOverMean, "peak \(peak), mean \(mean)")
        } else {
            // Everyone on nights 7, 14, 21, …, nobody in between.
            #expect(perNight[7] == Int(count))
            #expect(perNight[1..<7].allSatisfy { $0 == 0 })
            #expect(peak / mean >= peakOverMean - 0.01, "peak \(peak), mean \(mean)")
        }
        // Either way, receipts imported together cost about one check a week each.
        #expect(mean * 7 >= 0.99 * Double(count))
        #expect(mean * 7 <= 1.10 * Double(count))
    }
}
