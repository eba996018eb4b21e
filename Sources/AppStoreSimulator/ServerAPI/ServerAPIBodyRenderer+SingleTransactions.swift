/// Get Transaction Info and Look Up Order ID: one transaction of the account, signed as the
/// history signs it (same payload, same "now"), found by where its id points.
extension ServerAPIBodyRenderer {
    /// The signed `JWSTransactionDecodedPayload` of the transaction `reference` points at, as it
    /// stands at "now" (a refund since shows as its revocation); nil when it does not exist at
    /// "now", or is older than the newest `SubscriptionTimeline.historyLimit` of its subscription
    /// (the simulator keeps no more, as the history shows no more).
    func signedTransaction(at reference: SimulatedAccountRegistry.Reference) -> [UInt8]? {
        if reference.slot == SimulatedIdentifiers.consumableSlot {
            guard reference.index == 0, nowMs >= subscriber.receiptCreatedMs else { return nil }
            return sign(consumablePayload())
        }
        guard let timeline = timelines.first(where: { $0.slot == reference.slot }) else { return nil }
        let transaction = reference.index == 0
            ? timeline.firstTransaction
            : timeline.trimmedHistory().first { $0.index == reference.index }
        return transaction.map { sign(transactionPayload($0, in: timeline)) }
    }

    /// `TransactionInfoResponse`: `{"signedTransactionInfo":"<JWS>"}`.
    static func transactionInfoBody(_ signedTransaction: [UInt8]) -> [UInt8] {
        var json = JSONByteWriter(capacity: 64 + signedTransaction.count)
        json.beginObject()
        json.key("signedTransactionInfo")
        json.unescapedString { $0.append(contentsOf: signedTransaction) }
        json.endObject()
        return json.bytes
    }

    /// `OrderLookupResponse`: status 0 with the order's transactions, or status 1 (an order id
    /// Apple does not know) without `signedTransactions`, as Apple's page says.
    static func orderLookupBody(_ signedTransactions: [[UInt8]]) -> [UInt8] {
        var json = JSONByteWriter(capacity: 64 + signedTransactions.reduce(0) { $0 + $1.count + 3 })
        json.beginObject()
        json.field("status", number: signedTransactions.isEmpty ? 1 : 0)
        if !signedTransactions.isEmpty {
            json.key("signedTransactions")
            json.beginArray()
            for signed in signedTransactions {
                json.unescapedString { $0.append(contentsOf: signed) }
            }
            json.endArray()
        }
        json.endObject()
        return json.bytes
    }

    /// `JWSTransactionDecodedPayload` of the receipt's consumable (bought when the receipt was
    /// made, as verifyReceipt's `receipt.in_app` says): no expiry, no subscription fields.
    func consumablePayload() -> [UInt8] {
        let id = SimulatedIdentifiers.transactionID(
            subscriberID: subscriber.id, slot: SimulatedIdentifiers.consumableSlot, index: 0)
        var json = JSONByteWriter(capacity: 768)
        json.beginObject()
        json.field("transactionId", digits: id)
        json.field("originalTransactionId", digits: id)
        json.field("bundleId", variant.bundleID ?? bundleID)
        json.field("productId", SimulatedProducts.coins100)
        json.field("purchaseDate", number: subscriber.receiptCreatedMs)
        json.field("originalPurchaseDate", number: subscriber.receiptCreatedMs)
        json.field("quantity", number: 1)
        json.field("type", "Consumable")
        if let token = subscriber.appAccountToken {
            json.field("appAccountToken", token)
        }
        json.field("inAppOwnershipType", "PURCHASED")
        json.field("signedDate", number: nowMs)
        json.field("environment", (variant.environment ?? environment).rawValue)
        json.field("transactionReason", "PURCHASE")
        json.field("storefront", subscriber.storefront.rawValue)
        json.field("storefrontId", subscriber.storefront.storefrontID)
        json.field("price", number: SimulatedPriceTable.priceMilliunits(of: SimulatedProducts.coins100, currency: subscriber.currency))
        json.field("currency", subscriber.currency)
        json.endObject()
        return json.bytes
    }
}
