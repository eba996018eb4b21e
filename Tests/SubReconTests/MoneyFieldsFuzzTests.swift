import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import SubReconTestSupport
import Testing

/// The money fields of signed transactions, fuzzed: whatever Apple (or a bug) puts in `price`,
/// `currency`, `revocationPercentage`, `revocationType` and the other money fields, the scanner
/// never crashes, never lets a malformed amount through, never invents one, and leaves the fields
/// the subscription's state depends on exactly as they were. Then the whole path: the reconciler
/// writes the state and a ledger row whose refund follows the contract or is empty.
@Suite("Fuzz: money fields of signed transactions")
struct MoneyFieldsFuzzTests {
    static let seed: UInt64 = 0x6D6F_6E65_7921
    static let cases = 3_000

    /// A value for a money field: well-formed or not, of any JSON type.
    static func value(_ rng: inout SplitMix64) -> (text: String, integer: Int64?) {
        switch rng.int(14) {
        case 0: let v = Int64(rng.int(100_000_000)); return ("\(v)", v)
        case 1: return ("-\(1 + rng.int(1_000_000))", nil)
        case 2: return ("\(rng.int(100)).\(rng.int(100))", nil)
        case 3: return ("\"\(rng.int(100_000))\"", nil)
        case 4: return ("null", nil)
        case 5: return ("true", nil)
        case 6: return ("[1,2]", nil)
        case 7: return ("{\"a\":1}", nil)
        case 8: return ("9223372036854775807", Int64.max)
        case 9: return ("9223372036854775808", nil)
        case 10: return ("1e3", nil)
        case 11: return ("\"\(String(repeating: "X", count: rng.int(200)))\"", nil)
        case 12: return ("\"\\u00e9\\n\"", nil)
        default: return ("0", 0)
        }
    }

    static let stringFields = ["currency", "storefront", "offerPeriod", "transactionReason", "revocationType"]

    @Test("malformed money never crashes, never passes as an amount, never touches the state")
    func fuzzedMoneyFields() throws {
        for index in 0..<Self.cases {
            var rng = SplitMix64(seed: Self.seed, stream: 1, index: UInt64(index))
            let price = Self.value(&rng)
            let percentage = Self.value(&rng)
            var fields = [
                "\"transactionId\":\"2000\"", "\"originalTransactionId\":\"1000\"", "\"webOrderLineItemId\":\"3000\"",
                "\"productId\":\"com.example.pro.monthly\"", "\"purchaseDate\":1790000000000",
                "\"expiresDate\":1792592000000", "\"type\":\"Auto-Renewable Subscription\"", "\"signedDate\":1791000000000",
                "\"inAppOwnershipType\":\"PURCHASED\"", "\"price\":\(price.text)", "\"revocationPercentage\":\(percentage.text)",
            ]
            var strings: [String: (text: String, integer: Int64?)] = [:]
            for name in Self.stringFields where rng.chance(0.7) {
                let v = rng.chance(0.5) ? (text: "\"\(rng.pick(["USD", "JPY", "REFUND_FULL", "REFUND_PRORATED", "RENEWAL", "P1W", "", "ZZZ"]))\"", integer: Int64?.none) : Self.value(&rng)
                strings[name] = v
                fields.append("\"\(name)\":\(v.text)")
            }
            let revoked = rng.chance(0.5)
            if revoked { fields.append("\"revocationDate\":1791500000000") }
            for i in stride(from: fields.count - 1, to: 0, by: -1) { fields.swapAt(i, rng.int(i + 1)) }
            let body = "{" + fields.joined(separator: ",") + "}"

            let payload = try SignedTransactionPayload.scan(Array(body.utf8))
            // The state's fields are untouched by whatever the money fields hold.
            #expect(payload.transactionId == "2000" && payload.originalTransactionId == "1000", "\(body)")
            #expect(payload.expiresDate == 1_792_592_000_000 && payload.purchaseDate == 1_790_000_000_000, "\(body)")
            #expect(payload.revocationDate == (revoked ? 1_791_500_000_000 : nil), "\(body)")
            // An amount is the integer sent, within range, or nothing.
            let expectedPrice = price.integer.flatMap { $0 >= 0 ? $0 : nil }
            #expect(payload.price == expectedPrice, "\(body)")
            let expectedPercentage = percentage.integer.flatMap { (0...100_000).contains($0) ? $0 : nil }
            #expect(payload.revocationPercentage == expectedPercentage, "\(body)")
            let problems = payload.moneyProblems ?? []
            let priceMalformed = price.text != "null" && expectedPrice == nil
            #expect(problems.contains { $0.hasPrefix("price") } == priceMalformed, "\(body)")

            // Through the reconciler: the state applies; the ledger's refund obeys the contract.
            var transaction = payload.appleTransaction
            transaction.cancellationReason = revoked ? "0" : nil
            let account = AppleAccount(
                environment: .production, transactions: [transaction],
                renewals: [PendingRenewal(originalTransactionID: "1000", productID: "com.example.pro.monthly", autoRenewStatus: true)],
                asOfMs: 1_791_000_000_000)
            let update = ReceiptReconciler().reconcile(
                .answered(account), snapshot: ReceiptReconcilerTests.snapshot(), nowMs: 1_791_600_000_000, runID: 1)
            #expect(update.subscriptions.count == 1, "\(body)")
            let record = try #require(update.newRenewals.first, "\(body)")
            if let refund = record.refundMilliunits {
                let price = try #require(record.priceMilliunits, "a refund without a price: \(body)")
                #expect(refund >= 0 && refund <= price, "\(body)")
                if !revoked { #expect(refund == 0, "\(body)") }
            }
            if record.priceMilliunits == nil || (record.currency ?? "").isEmpty {
                #expect(record.refundMilliunits == nil, "an unknown price has an unknown refund: \(body)")
            }
        }
    }
}
