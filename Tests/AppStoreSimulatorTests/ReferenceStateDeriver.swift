/// The state derivation docs/run.md and docs/reports.md (`subscriptions`) describe, from Apple's
/// 'responseBody.Latest_receipt_info' and 'responseBody.Pending_renewal_info' pages, written
/// independently of the simulator,
/// so scenario expectations are checked against what a correct reconciler would conclude.
enum ReferenceStateDeriver {
    struct Derived: Equatable {
        var status: String
        var productID: String?
        var expirationIntent: String?
    }

    /// Status per `original_transaction_id` among transactions of `productIDs`.
    static func derive(_ answer: DecodedAnswer, nowMs: Int64, productIDs: [String]) -> [String: Derived] {
        var result: [String: Derived] = [:]
        let ours = (answer.latestReceiptInfo ?? []).filter {
            productIDs.contains($0["product_id"] ?? "") && $0["expires_date_ms"] != nil
        }
        let groups = Dictionary(grouping: ours) { $0["original_transaction_id"] ?? "" }
        for (originalID, transactions) in groups {
            let sorted = transactions.sorted {
                (ms($0["expires_date_ms"]), ms($0["purchase_date_ms"])) > (ms($1["expires_date_ms"]), ms($1["purchase_date_ms"]))
            }
            let renewal = answer.renewal(originalTransactionID: originalID)
            let top = sorted[0]
            let best = sorted.first { $0["cancellation_date_ms"] == nil }
            let derived: Derived
            if top["cancellation_date_ms"] != nil, top["is_upgraded"] != "true" {
                derived = Derived(status: "refunded", productID: top["product_id"])
            } else if let best {
                if ms(best["expires_date_ms"]) > nowMs {
                    derived = Derived(status: "active", productID: best["product_id"])
                } else if renewal?["is_in_billing_retry_period"] == "1",
                          ms(renewal?["grace_period_expires_date_ms"]) > nowMs {
                    derived = Derived(status: "grace_period", productID: best["product_id"])
                } else if renewal?["is_in_billing_retry_period"] == "1" {
                    derived = Derived(status: "billing_retry", productID: best["product_id"])
                } else {
                    derived = Derived(
                        status: "expired", productID: best["product_id"], expirationIntent: renewal?["expiration_intent"])
                }
            } else {
                derived = Derived(status: "unknown", productID: nil)
            }
            result[originalID] = derived
        }
        return result
    }

    /// The single status for a set of products, preferring the best across original transaction ids.
    static func bestStatus(_ answer: DecodedAnswer, nowMs: Int64, productIDs: [String]) -> Derived? {
        let rank = ["active": 0, "grace_period": 1, "billing_retry": 2, "refunded": 3, "expired": 4, "unknown": 5]
        return derive(answer, nowMs: nowMs, productIDs: productIDs).values.min {
            rank[$0.status, default: 9] < rank[$1.status, default: 9]
        }
    }
}
