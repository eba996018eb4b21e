/// How the signed items of one answer are made: by default with the good chain and the true
/// payload; a trust-failure fault (see `FaultStep`) swaps the chain or falsifies one field in
/// every signed item of the answer.
struct SignedDataVariant: Sendable, Hashable {
    var chain: SimulatedSigningAuthority.SigningChain.Kind = .valid
    /// Replaces the transactions' `bundleId` (another app's data).
    var bundleID: String?
    /// Replaces every payload's `environment` (e.g. Sandbox data at the production endpoint).
    var environment: SimulatedEnvironment?

    static let valid = SignedDataVariant()
    /// The bundle id `FaultStep.otherBundleID` writes.
    static let otherAppBundleID = FaultStep.otherAppBundleID
}

/// Renders the Server API answers for one account at one "now" from the same
/// `SubscriptionTimeline` that `ValidReceiptBodyRenderer` renders verifyReceipt from, so both
/// APIs report the same transactions, expiries, cancellations and renewal state:
///
/// | verifyReceipt | Server API |
/// |---|---|
/// | newest `latest_receipt_info` entry per `original_transaction_id` | `signedTransactionInfo` |
/// | `cancellation_date_ms` / `cancellation_reason` (refunds and upgrades) | `revocationDate` / `revocationReason` |
/// | `is_upgraded` "true" | `isUpgraded` true |
/// | `is_trial_period` "true" | `offerType` 1, `offerDiscountType` "FREE_TRIAL" |
/// | `is_in_intro_offer_period` "true" | `offerType` 1, `offerDiscountType` "PAY_UP_FRONT" |
/// | `pending_renewal_info` entry | `signedRenewalInfo` (`expirationIntent` and `autoRenewStatus` as numbers, `isInBillingRetryPeriod` as a boolean, absent when absent) |
struct ServerAPIBodyRenderer {
    let subscriber: SimulatedSubscriber
    /// The environment of the endpoint asked (equal to the account's; checked before).
    let environment: SimulatedEnvironment
    let nowMs: Int64
    let bundleID: String
    let appAppleID: Int64
    let authority: SimulatedSigningAuthority
    let variant: SignedDataVariant
    let timelines: [SubscriptionTimeline]

    init(
        subscriber: SimulatedSubscriber, environment: SimulatedEnvironment, nowMs: Int64, bundleID: String,
        appAppleID: Int64, authority: SimulatedSigningAuthority, variant: SignedDataVariant = .valid
    ) {
        self.subscriber = subscriber
        self.environment = environment
        self.nowMs = nowMs
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.authority = authority
        self.variant = variant
        timelines = Self.timelines(of: subscriber, nowMs: nowMs)
    }

    static func timelines(of subscriber: SimulatedSubscriber, nowMs: Int64) -> [SubscriptionTimeline] {
        subscriber.subscriptions.enumerated().compactMap { slot, subscription in
            SubscriptionTimeline(subscription: subscription, slot: slot, nowMs: nowMs)
        }
    }

    // MARK: Get All Subscription Statuses

    /// `StatusResponse`: one `data` item per subscription group (in slot order of first
    /// appearance), one `lastTransactions` item per subscription, carrying its newest transaction
    /// (by expiry: for an upgrade the new product's) and its renewal info. With `statuses` (the
    /// `status` query filter), only subscriptions in one of them, and only groups that keep one.
    func statusesBody(statuses: Set<Int>? = nil) -> [UInt8] {
        var groups: [(group: String, timelines: [SubscriptionTimeline])] = []
        for timeline in timelines {
            if let statuses, !statuses.contains(Self.status(of: timeline, nowMs: nowMs)) { continue }
            let group = SimulatedProducts.subscriptionGroup(of: timeline.newestTransaction.productID)
            if let position = groups.firstIndex(where: { $0.group == group }) {
                groups[position].timelines.append(timeline)
            } else {
                groups.append((group, [timeline]))
            }
        }
        var json = JSONByteWriter(capacity: 2048 + 3000 * timelines.count)
        json.beginObject()
        json.field("environment", environment.rawValue)
        json.field("bundleId", bundleID)
        if environment == .production {
            json.field("appAppleId", number: appAppleID)
        }
        json.key("data")
        json.beginArray()
        for (group, members) in groups {
            json.beginObject()
            json.field("subscriptionGroupIdentifier", group)
            json.key("lastTransactions")
            json.beginArray()
            for timeline in members {
                let newest = timeline.newestTransaction
                json.beginObject()
                json.field("originalTransactionId", digits: originalTransactionID(timeline.slot))
                json.field("status", number: Int64(Self.status(of: timeline, nowMs: nowMs)))
                json.key("signedTransactionInfo")
                json.unescapedString { $0.append(contentsOf: sign(transactionPayload(newest, in: timeline))) }
                json.key("signedRenewalInfo")
                json.unescapedString { $0.append(contentsOf: sign(renewalPayload(timeline))) }
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// Apple's subscription status: 1 active, 2 expired, 3 billing retry, 4 Billing Grace Period,
    /// 5 revoked — decided as subrecon's derivation decides it from the same data.
    static func status(of timeline: SubscriptionTimeline, nowMs: Int64) -> Int {
        let newest = timeline.newestTransaction
        if newest.cancellationMs != nil, !newest.isUpgraded { return 5 }
        if newest.expiresMs > nowMs { return 1 }
        let renewal = timeline.renewal
        if renewal.isInBillingRetry == true {
            if let grace = renewal.gracePeriodExpiresMs, grace > nowMs { return 4 }
            return 3
        }
        return 2
    }

    // MARK: Get Transaction History v2

    /// Position in the history: transactions are ordered by (last modified time, transaction id),
    /// where "modified" is the purchase, or the refund or upgrade that cancelled it later, or the
    /// reversal of that refund — like Apple's ASCENDING sort, a transaction refunded (or
    /// reinstated) after a client read it shows up again.
    struct HistoryKey: Sendable, Hashable, Comparable {
        var modifiedMs: Int64
        var transactionID: Int64

        static func < (a: Self, b: Self) -> Bool {
            (a.modifiedMs, a.transactionID) < (b.modifiedMs, b.transactionID)
        }

        static let start = HistoryKey(modifiedMs: .min, transactionID: .min)

        /// The opaque `revision`: base64url of `h1.<modifiedMs>.<transactionId>`.
        var revision: String {
            Base64URL.encodeString(Array("h1.\(modifiedMs).\(transactionID)".utf8))
        }

        /// Parses a `revision` (nil when it is not one of ours).
        init?(revision: String) {
            guard let bytes = Base64URL.decode(revision) else { return nil }
            let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "h1", let modified = Int64(parts[1]), let id = Int64(parts[2]) else {
                return nil
            }
            self.init(modifiedMs: modified, transactionID: id)
        }

        init(modifiedMs: Int64, transactionID: Int64) {
            self.modifiedMs = modifiedMs
            self.transactionID = transactionID
        }
    }

    /// Every materialised subscription transaction of the account (the newest
    /// `SubscriptionTimeline.historyLimit` per subscription, as verifyReceipt shows), in history order.
    func historyEntries() -> [(key: HistoryKey, timeline: SubscriptionTimeline, transaction: SimulatedTransaction)] {
        var entries: [(key: HistoryKey, timeline: SubscriptionTimeline, transaction: SimulatedTransaction)] = []
        for timeline in timelines {
            for transaction in timeline.trimmedHistory() {
                let key = HistoryKey(
                    modifiedMs: transaction.modifiedMs,
                    transactionID: transactionID(timeline.slot, transaction.index))
                entries.append((key, timeline, transaction))
            }
        }
        entries.sort { $0.key < $1.key }
        return entries
    }

    /// `HistoryResponse`: up to `pageSize` transactions after `after`, the `revision` of the last
    /// one served (or `after` again when none), and `hasMore`.
    func historyBody(after: HistoryKey, pageSize: Int) -> [UInt8] {
        let remaining = historyEntries().drop { $0.key <= after }
        let page = remaining.prefix(max(1, pageSize))
        let revision = page.last?.key ?? after
        var json = JSONByteWriter(capacity: 1024 + 2000 * page.count)
        json.beginObject()
        json.field("revision", revision.revision)
        json.field("bundleId", bundleID)
        if environment == .production {
            json.field("appAppleId", number: appAppleID)
        }
        json.field("environment", environment.rawValue)
        json.key("hasMore")
        json.bool(remaining.count > page.count)
        json.key("signedTransactions")
        json.beginArray()
        for entry in page {
            json.unescapedString { $0.append(contentsOf: sign(transactionPayload(entry.transaction, in: entry.timeline))) }
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    // MARK: Payloads

    /// The compact JWS of `payload` with the variant's chain (notifications sign their own
    /// payload with it too, so the defect is the same inside and out).
    func sign(_ payload: [UInt8]) -> [UInt8] {
        SimulatedJWSSigner.sign(payload: payload, with: authority.chain(variant.chain))
    }

    private func transactionID(_ slot: Int, _ index: Int64) -> Int64 {
        SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: slot, index: index)
    }

    private func originalTransactionID(_ slot: Int) -> Int64 {
        transactionID(slot, 0)
    }

    private var payloadEnvironment: String { (variant.environment ?? environment).rawValue }

    /// `JWSTransactionDecodedPayload` of `transaction`.
    func transactionPayload(_ transaction: SimulatedTransaction, in timeline: SubscriptionTimeline) -> [UInt8] {
        let slot = timeline.slot
        let productID = transaction.productID
        var json = JSONByteWriter(capacity: 1024)
        json.beginObject()
        json.field("transactionId", digits: transactionID(slot, transaction.index))
        json.field("originalTransactionId", digits: originalTransactionID(slot))
        json.field(
            "webOrderLineItemId",
            digits: SimulatedIdentifiers.webOrderLineItemID(subscriberID: subscriber.id, slot: slot, index: transaction.index))
        json.field("bundleId", variant.bundleID ?? bundleID)
        json.field("productId", productID)
        json.field("subscriptionGroupIdentifier", SimulatedProducts.subscriptionGroup(of: productID))
        json.field("purchaseDate", number: transaction.purchaseMs)
        json.field("originalPurchaseDate", number: subscriber.subscriptions[slot].firstPurchaseMs)
        json.field("expiresDate", number: transaction.expiresMs)
        json.field("quantity", number: 1)
        json.field("type", "Auto-Renewable Subscription")
        if let token = subscriber.appAccountToken {
            json.field("appAccountToken", token)
        }
        // The app download the purchase belongs to (App Store Server API 1.15): one per account.
        json.field("appTransactionId", ServerAPIIdentifiers.appTransactionID(subscriberID: subscriber.id))
        json.field("inAppOwnershipType", subscriber.ownership.rawValue)
        json.field("signedDate", number: nowMs)
        if let cancellationMs = transaction.cancellationMs {
            // Refunds, and upgrades too: the same data as verifyReceipt's `cancellation_date`.
            json.field("revocationReason", number: Int64(transaction.cancellationReason ?? "0") ?? 0)
            json.field("revocationDate", number: cancellationMs)
            // An upgrade's revocation has no type: the ledger counts no refund for it.
            if let revocationType = transaction.revocationType {
                json.field("revocationType", revocationType)
                if let percentage = transaction.refundPercentage {
                    json.field("revocationPercentage", number: percentage)
                }
            }
        }
        if transaction.isUpgraded {
            json.key("isUpgraded")
            json.bool(true)
        }
        if transaction.isTrial || transaction.isIntroOffer {
            json.field("offerType", number: 1)
            json.field("offerDiscountType", transaction.isTrial ? "FREE_TRIAL" : "PAY_UP_FRONT")
            json.field("offerPeriod", Self.offerPeriod(lengthMs: transaction.expiresMs - transaction.purchaseMs))
        }
        json.field("environment", payloadEnvironment)
        json.field("transactionReason", Self.isPurchase(transaction, in: timeline) ? "PURCHASE" : "RENEWAL")
        json.field("storefront", subscriber.storefront.rawValue)
        json.field("storefrontId", subscriber.storefront.storefrontID)
        json.field("price", number: Self.priceMilliunits(of: transaction, currency: subscriber.currency))
        json.field("currency", subscriber.currency)
        json.endObject()
        return json.bytes
    }

    /// What the customer paid for `transaction`: nothing for a free trial, the offer's price for
    /// a pay-up-front introductory offer, else the product's regular price.
    static func priceMilliunits(of transaction: SimulatedTransaction, currency: String) -> Int64 {
        if transaction.isTrial { return 0 }
        if transaction.isIntroOffer {
            return SimulatedPriceTable.introPriceMilliunits(of: transaction.productID, currency: currency)
        }
        return SimulatedPriceTable.priceMilliunits(of: transaction.productID, currency: currency)
    }

    /// `offerPeriod` as ISO 8601 duration of an offer period of `lengthMs`, in the largest unit
    /// of the simulator's calendar that divides it (365-day years, 30-day months, weeks, days).
    static func offerPeriod(lengthMs: Int64) -> String {
        let days = lengthMs / SimulatedProducts.dayMs
        guard days > 0 else { return "P1D" }
        if days % 365 == 0 { return "P\(days / 365)Y" }
        if days % 30 == 0 { return "P\(days / 30)M" }
        if days % 7 == 0 { return "P\(days / 7)W" }
        return "P\(days)D"
    }

    /// The original purchase, and the transaction an upgrade starts, are purchases; everything
    /// else (renewals, billing recoveries, downgrades taking effect) is a renewal.
    static func isPurchase(_ transaction: SimulatedTransaction, in timeline: SubscriptionTimeline) -> Bool {
        if transaction.index == 0 { return true }
        let history = timeline.trimmedHistory()
        guard let position = history.firstIndex(where: { $0.index == transaction.index }),
              position > history.startIndex
        else { return false }
        return history[history.index(before: position)].isUpgraded
    }

    /// `JWSRenewalInfoDecodedPayload` of the subscription.
    func renewalPayload(_ timeline: SubscriptionTimeline) -> [UInt8] {
        let renewal = timeline.renewal
        let subscription = subscriber.subscriptions[timeline.slot]
        var json = JSONByteWriter(capacity: 512)
        json.beginObject()
        json.field("originalTransactionId", digits: originalTransactionID(timeline.slot))
        json.field("autoRenewProductId", renewal.autoRenewProductID)
        json.field("productId", renewal.productID)
        json.field("autoRenewStatus", number: renewal.autoRenewOn ? 1 : 0)
        if let intent = renewal.expirationIntent.flatMap({ Int64($0) }) {
            json.field("expirationIntent", number: intent)
        }
        if let retrying = renewal.isInBillingRetry {
            json.key("isInBillingRetryPeriod")
            json.bool(retrying)
        }
        if let graceMs = renewal.gracePeriodExpiresMs {
            json.field("gracePeriodExpiresDate", number: graceMs)
        }
        json.field("signedDate", number: nowMs)
        json.field("environment", payloadEnvironment)
        // The simulator has no lapses of 60 days or more that a subscription survives, so the
        // current run of periods starts at the first purchase.
        json.field("recentSubscriptionStartDate", number: subscription.firstPurchaseMs)
        json.field("renewalDate", number: timeline.newestTransaction.expiresMs)
        if renewal.autoRenewOn {
            json.field(
                "renewalPrice",
                number: SimulatedPriceTable.priceMilliunits(of: renewal.autoRenewProductID, currency: subscriber.currency))
            json.field("currency", subscriber.currency)
        }
        json.endObject()
        return json.bytes
    }
}

/// Values the Server API carries that verifyReceipt does not.
public enum ServerAPIIdentifiers {
    /// The default `appAccountToken` of every transaction of an account (see
    /// `SimulatedSubscriber.appAccountToken`): a version-4-shaped UUID derived from the subscriber
    /// id, so it is stable across calls (lowercase, like Apple's).
    public static func appAccountToken(subscriberID: Int64) -> String {
        uuid(seed: UInt64(bitPattern: subscriberID) ^ 0xACC0_0A7_70CE)
    }

    /// The `appTransactionId` of every transaction of an account: a digit string derived from the
    /// subscriber id, like Apple's.
    public static func appTransactionID(subscriberID: Int64) -> String {
        String(704_000_000_000_000 + subscriberID)
    }

    /// A version-4-shaped lowercase UUID that only depends on `seed`.
    static func uuid(seed: UInt64) -> String {
        var generator = SplitMix64(seed: seed)
        let high = generator.next() & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = generator.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        return "\(hex(high >> 32, 8))-\(hex(high >> 16 & 0xFFFF, 4))-\(hex(high & 0xFFFF, 4))-"
            + "\(hex(low >> 48, 4))-\(hex(low & 0xFFFF_FFFF_FFFF, 12))"
    }

    /// `price` in milliunits of USD (10990 = 10.99); other currencies: `SimulatedPriceTable`.
    public static func priceMilliunits(of productID: String) -> Int64 {
        SimulatedPriceTable.priceMilliunits(of: productID, currency: "USD")
    }
}
