import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The state table: every status of the contract and the shapes that trip up hand-written jobs.
/// Synthetic bodies, because no licensed real capture exists for grace, retry or `is_upgraded`.
@Suite struct SubscriptionStateDerivationTests {
    static let now: Int64 = 1_795_329_964_000  // 2026-11-22T06:46:04Z
    static let day: Int64 = 86_400_000
    static let monthly = "com.example.pro.monthly"
    static let yearly = "com.example.pro.yearly"
    static let premium = "com.example.premium.monthly"

    static func tx(
        _ id: Int, otid: String = "1000", product: String = monthly, purchase: Int64, expires: Int64?,
        cancelled: Int64? = nil, upgraded: Bool = false, ownership: String? = nil
    ) -> AppleTransaction {
        AppleTransaction(
            transactionID: "\(id)", originalTransactionID: otid, webOrderLineItemID: "\(id + 50_000)", productID: product,
            purchaseDateMs: purchase, expiresDateMs: expires, cancellationDateMs: cancelled, isUpgraded: upgraded,
            ownershipType: ownership)
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var transactions: [AppleTransaction]
        var renewals: [PendingRenewal] = []
        var products: Set<String> = []
        /// Expected (otid, status, product, expires) per subscription, ordered by otid.
        var expected: [(String, SubscriptionStatus, String, Int64)]
        var undetermined: [String] = []
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "active: the newest period runs past now",
            transactions: [tx(1, purchase: now - 40 * day, expires: now - 10 * day), tx(2, purchase: now - 10 * day, expires: now + 20 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", autoRenewStatus: true)],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "expired at exactly now counts as expired (strict >)",
            transactions: [tx(1, purchase: now - 30 * day, expires: now)],
            expected: [("1000", .expired, monthly, now)]),
        Case(
            name: "grace period: billing retry and the grace end is still ahead",
            transactions: [tx(1, purchase: now - 32 * day, expires: now - 2 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", autoRenewStatus: true, expirationIntent: 2, isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: now + 14 * day)],
            expected: [("1000", .gracePeriod, monthly, now - 2 * day)]),
        Case(
            name: "billing retry: grace period over, Apple still retrying",
            transactions: [tx(1, purchase: now - 50 * day, expires: now - 20 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: now - 17 * day)],
            expected: [("1000", .billingRetry, monthly, now - 20 * day)]),
        Case(
            name: "billing retry without any grace period configured",
            transactions: [tx(1, purchase: now - 33 * day, expires: now - 3 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", isInBillingRetryPeriod: true)],
            expected: [("1000", .billingRetry, monthly, now - 3 * day)]),
        Case(
            name: "expired: not in billing retry",
            transactions: [tx(1, purchase: now - 90 * day, expires: now - 60 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", autoRenewStatus: false, expirationIntent: 1, isInBillingRetryPeriod: false)],
            expected: [("1000", .expired, monthly, now - 60 * day)]),
        Case(
            name: "refunded: the newest transaction is cancelled without is_upgraded",
            transactions: [tx(1, purchase: now - 40 * day, expires: now - 10 * day), tx(2, purchase: now - 10 * day, expires: now + 20 * day, cancelled: now - 5 * day)],
            expected: [("1000", .refunded, monthly, now + 20 * day)]),
        Case(
            name: "an older refunded period does not matter while a newer one is live",
            transactions: [tx(1, purchase: now - 40 * day, expires: now - 10 * day, cancelled: now - 30 * day), tx(2, purchase: now - 10 * day, expires: now + 20 * day)],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "upgrade: the superseded yearly has the later expiry but is_upgraded; premium governs",
            transactions: [
                tx(1, product: yearly, purchase: now - 100 * day, expires: now + 265 * day, cancelled: now - 10 * day, upgraded: true),
                tx(2, product: premium, purchase: now - 10 * day, expires: now + 20 * day),
            ],
            expected: [("1000", .active, premium, now + 20 * day)]),
        Case(
            name: "upgrade leftover only: replacement missing from the answer → undetermined",
            transactions: [tx(1, product: yearly, purchase: now - 100 * day, expires: now + 265 * day, cancelled: now - 10 * day, upgraded: true)],
            expected: [], undetermined: ["1000"]),
        Case(
            name: "pending downgrade: active on yearly, auto_renew_product_id names monthly",
            transactions: [tx(1, product: yearly, purchase: now - 100 * day, expires: now + 265 * day)],
            renewals: [PendingRenewal(originalTransactionID: "1000", productID: yearly, autoRenewProductID: monthly, autoRenewStatus: true)],
            expected: [("1000", .active, yearly, now + 265 * day)]),
        Case(
            name: "family sharing: a shared entitlement is a subscription like any other",
            transactions: [tx(1, purchase: now - 10 * day, expires: now + 20 * day, ownership: "FAMILY_SHARED")],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "unsorted entries, 12- and 13-digit values compared as integers",
            transactions: [
                tx(3, purchase: 999_000_000_000, expires: 999_999_999_999),
                tx(1, purchase: now - 10 * day, expires: now + 20 * day),
                tx(2, purchase: now - 40 * day, expires: now - 10 * day),
            ],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "two subscription groups in one receipt: one state each",
            transactions: [
                tx(1, otid: "1000", purchase: now - 10 * day, expires: now + 20 * day),
                tx(2, otid: "2000", product: "com.example.news.monthly", purchase: now - 70 * day, expires: now - 40 * day),
            ],
            renewals: [
                PendingRenewal(originalTransactionID: "2000", autoRenewStatus: false, expirationIntent: 1),
                PendingRenewal(originalTransactionID: "1000", autoRenewStatus: true),
            ],
            expected: [("1000", .active, monthly, now + 20 * day), ("2000", .expired, "com.example.news.monthly", now - 40 * day)]),
        Case(
            name: "a consumable (no expiry) is never a subscription",
            transactions: [tx(9, otid: "9", product: "com.example.coins.100", purchase: now - day, expires: nil), tx(1, purchase: now - 10 * day, expires: now + 20 * day)],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "configured products: entries of other products are ignored",
            transactions: [
                tx(1, otid: "1000", purchase: now - 10 * day, expires: now + 20 * day),
                tx(2, otid: "2000", product: "com.other.app.monthly", purchase: now - 10 * day, expires: now + 20 * day),
            ],
            products: [monthly, yearly, premium],
            expected: [("1000", .active, monthly, now + 20 * day)]),
        Case(
            name: "a renewal entry without original_transaction_id is matched by product (2017 bodies)",
            transactions: [tx(1, purchase: now - 33 * day, expires: now - 3 * day)],
            renewals: [PendingRenewal(originalTransactionID: nil, productID: monthly, isInBillingRetryPeriod: true)],
            expected: [("1000", .billingRetry, monthly, now - 3 * day)]),
        Case(
            name: "no entries at all: no subscription",
            transactions: [],
            expected: []),
    ]

    @Test(arguments: cases)
    func derivesTheContractStatus(_ c: Case) {
        let result = SubscriptionStateDerivation.derive(
            transactions: c.transactions, pendingRenewals: c.renewals, nowMs: Self.now, products: c.products)
        #expect(result.states.count == c.expected.count)
        for (state, expected) in zip(result.states, c.expected) {
            #expect(state.originalTransactionID == expected.0)
            #expect(state.status == expected.1)
            #expect(state.productID == expected.2)
            #expect(state.expiresDateMs == expected.3)
        }
        #expect(result.undetermined == c.undetermined)
    }

    @Test func theOrderOfEntriesNeverChangesTheResult() {
        let entries = [
            Self.tx(1, purchase: Self.now - 70 * Self.day, expires: Self.now - 40 * Self.day),
            Self.tx(2, purchase: Self.now - 40 * Self.day, expires: Self.now - 10 * Self.day),
            Self.tx(3, purchase: Self.now - 10 * Self.day, expires: Self.now + 20 * Self.day),
        ]
        let reference = SubscriptionStateDerivation.derive(transactions: entries, pendingRenewals: [], nowMs: Self.now)
        for permutation in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let shuffled = permutation.map { entries[$0] }
            let result = SubscriptionStateDerivation.derive(transactions: shuffled, pendingRenewals: [], nowMs: Self.now)
            #expect(result.states == reference.states)
        }
    }

    @Test func pendingDowngradeKeepsTheNextProductAndAutoRenew() throws {
        let result = SubscriptionStateDerivation.derive(
            transactions: [Self.tx(1, product: Self.yearly, purchase: Self.now - Self.day, expires: Self.now + 300 * Self.day)],
            pendingRenewals: [PendingRenewal(originalTransactionID: "1000", productID: Self.yearly, autoRenewProductID: Self.monthly, autoRenewStatus: true)],
            nowMs: Self.now)
        let state = try #require(result.states.first)
        #expect(state.autoRenewProductID == Self.monthly)
        #expect(state.autoRenewStatus == true)
        #expect(state.expirationIntent == nil)
    }

    /// A token set after the purchase (Set App Account Token) shows on the renewal info before a
    /// later transaction carries it; the transaction's own token wins when it has one.
    @Test func theRenewalInfosTokenStandsInForATransactionWithout() throws {
        let token = "3c1f6a0e-9b2d-4c7e-8f41-5a6b7c8d9e0f"
        var renewal = PendingRenewal(originalTransactionID: "1000", productID: Self.monthly, autoRenewStatus: true)
        renewal.appAccountToken = token
        var transaction = Self.tx(1, purchase: Self.now - Self.day, expires: Self.now + 29 * Self.day)
        let fromRenewal = try #require(
            SubscriptionStateDerivation.derive(transactions: [transaction], pendingRenewals: [renewal], nowMs: Self.now).states.first)
        #expect(fromRenewal.appAccountToken == token)
        transaction.appAccountToken = "0b7c1a52-55a4-4d1e-9d59-5bd7e1d4c6a3"
        let own = try #require(
            SubscriptionStateDerivation.derive(transactions: [transaction], pendingRenewals: [renewal], nowMs: Self.now).states.first)
        #expect(own.appAccountToken == "0b7c1a52-55a4-4d1e-9d59-5bd7e1d4c6a3")
        // The signed renewal info's field is read (and lower-cased) into the model.
        let scanned = try SignedRenewalPayload.scan(
            Array(#"{"originalTransactionId":"1000","appAccountToken":"3C1F6A0E-9B2D-4C7E-8F41-5A6B7C8D9E0F"}"#.utf8))
        #expect(scanned.pendingRenewal.appAccountToken == token)
    }

    @Test func refundCarriesItsCancellationDateAndEntitlesNothing() throws {
        let result = SubscriptionStateDerivation.derive(
            transactions: [Self.tx(1, purchase: Self.now - 10 * Self.day, expires: Self.now + 20 * Self.day, cancelled: Self.now - Self.day)],
            pendingRenewals: [], nowMs: Self.now)
        let state = try #require(result.states.first)
        #expect(state.cancellationDateMs == Self.now - Self.day)
        #expect(!state.status.isEntitled)
    }

    @Test func graceIsEntitledAndBillingRetryIsNot() {
        #expect(SubscriptionStatus.active.isEntitled)
        #expect(SubscriptionStatus.gracePeriod.isEntitled)
        #expect(!SubscriptionStatus.billingRetry.isEntitled)
        #expect(!SubscriptionStatus.expired.isEntitled)
        #expect(!SubscriptionStatus.refunded.isEntitled)
    }
}
