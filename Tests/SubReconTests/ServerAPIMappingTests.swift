import AppleSignedData
import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// Apple's signed payloads (decoded) → our model, against Apple's own library fixtures.
@Suite("Server API mapping")
struct ServerAPIMappingTests {
    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/server-api/\(name)", withExtension: "json"))
        return try Data(contentsOf: url)
    }

    @Test func apples_signedTransactionMapsOntoTheVerifyReceiptFields() throws {
        let payload = try SignedTransactionPayload.scan(Array(Self.fixture("signedTransaction")))
        // The one-pass scanner reads what Foundation's JSONDecoder reads.
        #expect(payload == (try JSONDecoder().decode(SignedTransactionPayload.self, from: Self.fixture("signedTransaction"))))
        let transaction = payload.appleTransaction
        #expect(transaction.transactionID == "23456")
        #expect(transaction.originalTransactionID == "12345")
        #expect(transaction.webOrderLineItemID == "34343")
        #expect(transaction.productID == "com.example.product")
        #expect(transaction.purchaseDateMs == 1_698_148_900_000)
        #expect(transaction.expiresDateMs == 1_698_149_000_000)
        #expect(transaction.cancellationDateMs == 1_698_148_950_000)
        #expect(transaction.cancellationReason == "1")
        #expect(transaction.isUpgraded)
        // offerType 1 with PAY_AS_YOU_GO is an introductory offer, not a free trial.
        #expect(transaction.isTrialPeriod == false)
        #expect(transaction.isInIntroOfferPeriod == true)
        #expect(transaction.ownershipType == "PURCHASED")
        #expect(transaction.subscriptionGroupIdentifier == "55555")
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.appTransactionID == "71134")
        #expect(transaction.periodKey == "34343")
        #expect(payload.environment == "LocalTesting")
    }

    @Test func apples_signedRenewalInfoMapsOntoPendingRenewal() throws {
        let payload = try SignedRenewalPayload.scan(Array(Self.fixture("signedRenewalInfo")))
        #expect(payload == (try JSONDecoder().decode(SignedRenewalPayload.self, from: Self.fixture("signedRenewalInfo"))))
        let renewal = payload.pendingRenewal
        #expect(renewal.originalTransactionID == "12345")
        #expect(renewal.productID == "com.example.product")
        #expect(renewal.autoRenewProductID == "com.example.product.2")
        #expect(renewal.autoRenewStatus == true)
        #expect(renewal.expirationIntent == 1)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.gracePeriodExpiresDateMs == 1_698_148_900_000)
    }

    @Test(arguments: [
        (1, "FREE_TRIAL", true, false), (1, "PAY_UP_FRONT", false, true), (2, "PAY_AS_YOU_GO", false, false),
        (3, "FREE_TRIAL", false, false),
    ])
    func onlyIntroductoryOffersAreTrialsOrIntroPeriods(offerType: Int, discount: String, trial: Bool, intro: Bool) {
        let payload = SignedTransactionPayload(offerType: offerType, offerDiscountType: discount)
        #expect(payload.appleTransaction.isTrialPeriod == trial)
        #expect(payload.appleTransaction.isInIntroOfferPeriod == intro)
    }

    @Test func absentRenewalFieldsStayUnknownNotFalse() throws {
        let payload = try JSONDecoder().decode(SignedRenewalPayload.self, from: Data(#"{"originalTransactionId":"1"}"#.utf8))
        #expect(payload.pendingRenewal.isInBillingRetryPeriod == nil)
        #expect(payload.pendingRenewal.autoRenewStatus == nil)
    }

    /// One derivation for both APIs: the same subscription told by verifyReceipt's fields and by
    /// the Server API's payloads derives the same state.
    @Test(arguments: [
        // (expires in days from now, revoked, retry, grace end in days, expected)
        (10, false, false, nil, SubscriptionStatus.active), (-1, false, true, 5, .gracePeriod),
        (-1, false, true, nil, .billingRetry), (-30, false, false, nil, .expired), (10, true, false, nil, .refunded),
    ] as [(Int64, Bool, Bool, Int64?, SubscriptionStatus)])
    func bothAPIsDeriveTheSameState(expiresInDays: Int64, revoked: Bool, retry: Bool, graceDays: Int64?, expected: SubscriptionStatus) throws {
        let now: Int64 = 1_795_329_964_000
        let day: Int64 = 86_400_000
        let expires = now + expiresInDays * day
        let json = """
            {"transactionId":"2000000000000002","originalTransactionId":"2000000000000001","webOrderLineItemId":"300",
             "productId":"com.example.pro.monthly","purchaseDate":\(expires - 30 * day),"expiresDate":\(expires),
             "inAppOwnershipType":"PURCHASED"\(revoked ? #","revocationDate":\#(now - day),"revocationReason":0"# : "")}
            """
        let renewalJSON = """
            {"originalTransactionId":"2000000000000001","productId":"com.example.pro.monthly",
             "autoRenewProductId":"com.example.pro.monthly","autoRenewStatus":\(retry ? 1 : 0),
             "isInBillingRetryPeriod":\(retry)\(graceDays.map { #","gracePeriodExpiresDate":\#(now + $0 * day)"# } ?? "")}
            """
        let fromServerAPI = SubscriptionStateDerivation.derive(
            transactions: [try JSONDecoder().decode(SignedTransactionPayload.self, from: Data(json.utf8)).appleTransaction],
            pendingRenewals: [try JSONDecoder().decode(SignedRenewalPayload.self, from: Data(renewalJSON.utf8)).pendingRenewal],
            nowMs: now)
        let verifyReceiptBody = """
            {"status":0,"environment":"Production","latest_receipt_info":[{"transaction_id":"2000000000000002",
             "original_transaction_id":"2000000000000001","web_order_line_item_id":"300","product_id":"com.example.pro.monthly",
             "purchase_date_ms":"\(expires - 30 * day)","expires_date_ms":"\(expires)","in_app_ownership_type":"PURCHASED",
             "is_trial_period":"false","is_in_intro_offer_period":"false"
             \(revoked ? #","cancellation_date_ms":"\#(now - day)","cancellation_reason":"0""# : "")}],
             "pending_renewal_info":[{"original_transaction_id":"2000000000000001","product_id":"com.example.pro.monthly",
             "auto_renew_product_id":"com.example.pro.monthly","auto_renew_status":"\(retry ? 1 : 0)",
             "is_in_billing_retry_period":"\(retry ? 1 : 0)"\(graceDays.map { #","grace_period_expires_date_ms":"\#(now + $0 * day)""# } ?? "")}]}
            """
        let response = try VerifyReceiptResponse.decode(Array(verifyReceiptBody.utf8))
        let fromVerifyReceipt = SubscriptionStateDerivation.derive(
            transactions: response.transactions, pendingRenewals: response.pendingRenewals, nowMs: now)
        // The same state and periods; only signed data carries money (verifyReceipt gives none).
        #expect(fromServerAPI.states == fromVerifyReceipt.states)
        #expect(fromServerAPI.periods.allSatisfy { $0.money != nil } && fromVerifyReceipt.periods.allSatisfy { $0.money == nil })
        #expect(fromServerAPI.periods.map { var p = $0; p.money = nil; return p } == fromVerifyReceipt.periods)
        #expect(fromServerAPI.states.first?.status == expected)
    }

    @Test(arguments: [
        #"{"expiresDate":"1698149000000"}"#, #"{"expiresDate":1.5}"#, #"{"revocationDate":true}"#,
        #"{"transactionId":"1",}"#, #"["transactionId"]"#, #"{"transactionId":"1"} x"#, "",
    ])
    func aPayloadWithAMistypedNumberOrBrokenJSONIsMalformedNotMissing(body: String) {
        #expect(throws: ServerAPIScanning.Malformed.self) { try SignedTransactionPayload.scan(Array(body.utf8)) }
    }

    @Test func aStatusResponseIsReadInOnePassWithUnknownKeysSkipped() throws {
        let body = #"""
            {"environment":"Sandbox","bundleId":"com.example","new":{"deep":[1,{"x":null}]},"data":[
              {"subscriptionGroupIdentifier":"55555","lastTransactions":[
                {"originalTransactionId":"12345","status":4,"signedTransactionInfo":"a.b.c","signedRenewalInfo":"d.e.f"},
                {"originalTransactionId":"67890","status":5,"signedTransactionInfo":"g.h.i"}]}]}
            """#
        let scanned = try ServerAPIWire.StatusResponse.scan(Array(body.utf8))
        #expect(scanned.environment == "Sandbox")
        #expect(scanned.appAppleId == nil)
        let items = scanned.data?.first?.lastTransactions ?? []
        #expect(items.map(\.originalTransactionId) == ["12345", "67890"])
        #expect(items.map(\.status) == [4, 5])
        #expect(items.map(\.signedRenewalInfo) == ["d.e.f", nil])
        let history = try ServerAPIWire.HistoryResponse.scan(
            Array(#"{"revision":"r1","hasMore":true,"appAppleId":1234,"signedTransactions":["a.b.c","d.e.f"]}"#.utf8))
        #expect(history.revision == "r1")
        #expect(history.hasMore == true)
        #expect(history.appAppleId == 1234)
        #expect(history.signedTransactions == ["a.b.c", "d.e.f"])
        #expect(ServerAPIWire.ErrorBody.scan(Array(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8))?.errorCode == 4_040_010)
        #expect(ServerAPIWire.ErrorBody.scan(Array("Unauthenticated".utf8)) == nil)
    }

    /// A JWS signed by Apple's production chain, verified to the compiled-in Apple Root CA - G3 and
    /// mapped: a consumable, so no subscription comes of it (no expiry), and nothing else breaks.
    @Test func aRealAppleSignedTransactionVerifiesAndMaps() async throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/server-api/apple-sandbox-transaction", withExtension: "jws"))
        let jws = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try await SignedDataVerifier.apple.verify(jws)
        let payload = try SignedTransactionPayload.scan(verified.payload)
        #expect(payload.bundleId == "com.goodheartapp")
        #expect(payload.environment == "Sandbox")
        #expect(payload.signedDate == verified.signedDateMs)
        let transaction = payload.appleTransaction
        #expect(transaction.transactionID == "2000000847061981")
        #expect(transaction.originalTransactionID == "2000000847061981")
        #expect(transaction.purchaseDateMs == 1_738_645_560_000)
        #expect(transaction.expiresDateMs == nil)
        let derived = SubscriptionStateDerivation.derive(
            transactions: [transaction], pendingRenewals: [], nowMs: verified.signedDateMs)
        #expect(derived.states.isEmpty)
        #expect(derived.periods.isEmpty)
    }
}
