/// Renders the status-0 answer for a receipt: `receipt` (with `in_app`), `latest_receipt_info`,
/// `latest_receipt` and `pending_renewal_info`, using Apple's wire types (strings for ids,
/// timestamps and flags; each date three times).
struct ValidReceiptBodyRenderer {
    let subscriber: SimulatedSubscriber
    let nowMs: Int64
    let excludeOldTransactions: Bool
    let bundleID: String
    /// `adam_id` and `app_item_id` of production receipts.
    let appAppleID: Int64

    func render() -> [UInt8] {
        let timelines = subscriber.subscriptions.enumerated().compactMap { slot, subscription in
            SubscriptionTimeline(subscription: subscription, slot: slot, nowMs: nowMs)
        }
        var json = JSONByteWriter(capacity: 4096 + 2 * subscriber.paddingBytes)
        json.beginObject()
        json.field("status", number: 0)
        json.field("environment", subscriber.environment.rawValue)
        json.key("receipt")
        writeReceipt(timelines, to: &json)
        if !timelines.isEmpty {
            json.key("latest_receipt_info")
            json.beginArray()
            // The same token the Server API reports, so both APIs describe the same purchase.
            let token = subscriber.appAccountToken
            for (timeline, transaction) in latestReceiptInfo(timelines) {
                writeTransaction(transaction, slot: timeline.slot, inLatestReceiptInfo: true, appAccountToken: token, to: &json)
            }
            json.endArray()
            var latest = subscriber
            latest.revision = Int(clamping: timelines.reduce(0) { $0 + $1.transactionCount })
            json.key("latest_receipt")
            json.unescapedString { SimulatedReceipt.appendEncoded(latest, to: &$0) }
            json.key("pending_renewal_info")
            json.beginArray()
            // Reverse slot order: array order is no contract, and readers must join on the id.
            for timeline in timelines.reversed() {
                writeRenewal(timeline, to: &json)
            }
            json.endArray()
        }
        json.endObject()
        return json.bytes
    }

    /// Full history (up to 100 per subscription) or, with `exclude-old-transactions`, the newest
    /// per `original_transaction_id` — in a deterministic scrambled order, because Apple promises none.
    private func latestReceiptInfo(_ timelines: [SubscriptionTimeline]) -> [(SubscriptionTimeline, SimulatedTransaction)] {
        var entries: [(SubscriptionTimeline, SimulatedTransaction)] = []
        for timeline in timelines {
            if excludeOldTransactions {
                entries.append((timeline, timeline.newestTransaction))
            } else {
                for transaction in timeline.trimmedHistory() {
                    entries.append((timeline, transaction))
                }
            }
        }
        let count = entries.count
        guard count >= 2 else { return entries }
        var generator = SplitMix64(seed: UInt64(bitPattern: subscriber.id) ^ UInt64(count) &* 0x9E37_79B9)
        entries.shuffle(using: &generator)
        if count >= 3, isMonotonic(entries.map { $0.1.purchaseMs }) {
            // A shuffle can land sorted; never hand out a sorted array (readers must sort themselves).
            entries.swapAt(0, 1)
        }
        return entries
    }

    private func isMonotonic(_ values: [Int64]) -> Bool {
        let pairs = zip(values, values.dropFirst())
        return pairs.allSatisfy { $0 <= $1 } || pairs.allSatisfy { $0 >= $1 }
    }

    private func writeReceipt(_ timelines: [SubscriptionTimeline], to json: inout JSONByteWriter) {
        let production = subscriber.environment == .production
        json.beginObject()
        json.field("receipt_type", subscriber.environment.receiptType)
        json.field("adam_id", number: production ? appAppleID : 0)
        json.field("app_item_id", number: production ? appAppleID : 0)
        json.field("bundle_id", bundleID)
        json.field("application_version", production ? "412" : "1")
        json.field("download_id", number: production ? SimulatedIdentifiers.downloadID(subscriberID: subscriber.id) : 0)
        json.field("version_external_identifier", number: production ? 864_310_257 : 0)
        json.dateFields("receipt_creation_date", subscriber.receiptCreatedMs)
        json.dateFields("request_date", nowMs)
        // The app's download date; sandbox receipts show Apple's fixed 2013-08-01 value.
        json.dateFields(
            "original_purchase_date",
            production ? subscriber.receiptCreatedMs - 45 * SimulatedProducts.dayMs : 1_375_340_400_000)
        json.field("original_application_version", production ? "398" : "1.0")
        json.key("in_app")
        json.beginArray()
        // The stored receipt's own purchases: each subscription's original purchase and a consumable.
        for timeline in timelines {
            writeTransaction(timeline.firstTransaction, slot: timeline.slot, inLatestReceiptInfo: false, to: &json)
        }
        writeConsumable(to: &json)
        json.endArray()
        json.endObject()
    }

    private func writeTransaction(
        _ transaction: SimulatedTransaction, slot: Int, inLatestReceiptInfo: Bool, appAccountToken: String? = nil,
        to json: inout JSONByteWriter
    ) {
        let originalID = SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: slot, index: 0)
        let originalPurchaseMs = subscriber.subscriptions[slot].firstPurchaseMs
        json.beginObject()
        json.field("quantity", "1")
        json.field("product_id", transaction.productID)
        json.field(
            "transaction_id",
            digits: SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: slot, index: transaction.index))
        json.field("original_transaction_id", digits: originalID)
        json.dateFields("purchase_date", transaction.purchaseMs)
        json.dateFields("original_purchase_date", originalPurchaseMs)
        json.dateFields("expires_date", transaction.expiresMs)
        if let cancellationMs = transaction.cancellationMs {
            json.dateFields("cancellation_date", cancellationMs)
            json.field("cancellation_reason", transaction.cancellationReason ?? "0")
        }
        if transaction.isUpgraded {
            json.field("is_upgraded", "true")
        }
        json.field(
            "web_order_line_item_id",
            digits: SimulatedIdentifiers.webOrderLineItemID(subscriberID: subscriber.id, slot: slot, index: transaction.index))
        json.field("is_trial_period", transaction.isTrial ? "true" : "false")
        json.field("is_in_intro_offer_period", transaction.isIntroOffer ? "true" : "false")
        json.field("in_app_ownership_type", subscriber.ownership.rawValue)
        if inLatestReceiptInfo {
            json.field("subscription_group_identifier", SimulatedProducts.subscriptionGroup(of: transaction.productID))
        }
        if let appAccountToken { json.field("app_account_token", appAccountToken) }
        json.endObject()
    }

    private func writeConsumable(to json: inout JSONByteWriter) {
        let id = SimulatedIdentifiers.transactionID(
            subscriberID: subscriber.id, slot: SimulatedIdentifiers.consumableSlot, index: 0)
        json.beginObject()
        json.field("quantity", "1")
        json.field("product_id", SimulatedProducts.coins100)
        json.field("transaction_id", digits: id)
        json.field("original_transaction_id", digits: id)
        json.dateFields("purchase_date", subscriber.receiptCreatedMs)
        json.dateFields("original_purchase_date", subscriber.receiptCreatedMs)
        json.field("is_trial_period", "false")
        json.field("in_app_ownership_type", "PURCHASED")
        json.endObject()
    }

    private func writeRenewal(_ timeline: SubscriptionTimeline, to json: inout JSONByteWriter) {
        let renewal = timeline.renewal
        json.beginObject()
        json.field("auto_renew_product_id", renewal.autoRenewProductID)
        json.field("product_id", renewal.productID)
        json.field(
            "original_transaction_id",
            digits: SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: timeline.slot, index: 0))
        json.field("auto_renew_status", renewal.autoRenewOn ? "1" : "0")
        if let intent = renewal.expirationIntent {
            json.field("expiration_intent", intent)
        }
        if let retrying = renewal.isInBillingRetry {
            json.field("is_in_billing_retry_period", retrying ? "1" : "0")
        }
        if let graceMs = renewal.gracePeriodExpiresMs {
            json.dateFields("grace_period_expires_date", graceMs)
        }
        json.endObject()
    }
}
