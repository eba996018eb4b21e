import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// Tolerant decoding of verifyReceipt answers (Apple's 'responseBody',
/// 'responseBody.Latest_receipt_info' and 'responseBody.Pending_renewal_info' pages, and what real
/// answers send instead).
@Suite("VerifyReceiptResponse decoding")
struct VerifyReceiptResponseTests {
    /// Decodes with the single-pass decoder, and checks that Foundation's decoder (the one it
    /// replaced) read the same body the same way: every case here is also an equivalence case.
    private func decode(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws(AppStoreAnswerError) -> VerifyReceiptResponse {
        let body = Array(json.utf8)
        let scanned = Result { () throws(AppStoreAnswerError) in try VerifyReceiptResponse.decode(body) }
        let equivalence = DecoderEquivalence.compare(body, scanned: scanned)
        #expect(equivalence == .same || equivalence == .bothRejected, "\(equivalence)", sourceLocation: sourceLocation)
        return try scanned.get()
    }

    /// A body with one `latest_receipt_info` entry whose fields are `fields` (raw JSON members).
    private func decodeEntry(_ fields: String) throws -> AppleTransaction {
        let response = try decode(#"{"status":0,"latest_receipt_info":[{\#(fields)}]}"#)
        try #require(response.transactions.count == 1)
        return response.transactions[0]
    }

    // MARK: status

    @Test("status is read as a number or as a numeric string", arguments: [
        (#"{"status":0}"#, 0),
        (#"{"status":"0"}"#, 0),
        (#"{"status":21007}"#, 21007),
        (#"{"status":"21007"}"#, 21007),
        (#"{"environment":"Sandbox","status":21104,"is_retryable":true}"#, 21104),
    ])
    func statusNumberOrString(body: String, expected: Int) throws {
        // Given a body whose status is spelled either way
        // When it is decoded
        let response = try decode(body)
        // Then the raw status and its typed form agree with the number sent
        #expect(response.rawStatus == expected)
        #expect(response.status == AppleStatus(rawValue: expected))
    }

    @Test("a body that is not a JSON object with a numeric status is notJSON", arguments: [
        "",
        "not json at all",
        "<html><body>502 Bad Gateway</body></html>",
        "[]",
        #"[{"status":0}]"#,
        "{}",
        #"{"environment":"Production"}"#,
        #"{"status":null}"#,
        #"{"status":""}"#,
        #"{"status":"ok"}"#,
        #"{"status":true}"#,
        #"{"status":0"#,
        "0",
    ])
    func notJSON(body: String) {
        // Given an answer that can't be used, when it is decoded, then it is notJSON with its size
        #expect(throws: AppStoreAnswerError.notJSON(byteCount: body.utf8.count)) {
            try decode(body)
        }
    }

    @Test func theNotJSONErrorTellsTheSizeAndNotTheBody() {
        let error = AppStoreAnswerError.notJSON(byteCount: 17)
        #expect(error.description.contains("17 bytes"))
    }

    // MARK: milliseconds

    @Test("_ms values are read from strings and numbers, 12 and 13 digits", arguments: [
        (#""expires_date_ms":"1591723711000""#, Int64(1_591_723_711_000)),
        (#""expires_date_ms":1591723711000"#, Int64(1_591_723_711_000)),
        (#""expires_date_ms":"999999999000""#, Int64(999_999_999_000)),
        (#""expires_date_ms":999999999000"#, Int64(999_999_999_000)),
        (#""expires_date_ms":"1350157508197""#, Int64(1_350_157_508_197)),
    ])
    func millisecondsStringsAndNumbers(field: String, expected: Int64) throws {
        // Given an entry whose expiry is spelled as a string or a number
        let entry = try decodeEntry(#""transaction_id":"1","original_transaction_id":"1",\#(field)"#)
        // Then the expiry is that instant in milliseconds
        #expect(entry.expiresDateMs == expected)
    }

    @Test func twelveAndThirteenDigitExpiriesCompareAsNumbersNotText() throws {
        // Given a 12-digit expiry (2001) and a 13-digit expiry (2020); as text "9…" > "1…"
        let response = try decode(
            #"""
            {"status":0,"latest_receipt_info":[
              {"transaction_id":"1","original_transaction_id":"1","purchase_date_ms":"999000000000","expires_date_ms":"999999999000"},
              {"transaction_id":"2","original_transaction_id":"1","purchase_date_ms":1591000000000,"expires_date_ms":1591723711000}
            ]}
            """#)
        // When decoded and the state is derived at a time between them
        let expiries = response.transactions.compactMap(\.expiresDateMs)
        let derived = SubscriptionStateDerivation.derive(
            transactions: response.transactions, pendingRenewals: [], nowMs: 1_500_000_000_000)
        // Then both are integers and the newer one governs
        #expect(expiries == [999_999_999_000, 1_591_723_711_000])
        #expect(derived.states.first?.expiresDateMs == 1_591_723_711_000)
        #expect(derived.states.first?.status == .active)
    }

    @Test func purchaseAndCancellationMillisecondsAreReadToo() throws {
        let entry = try decodeEntry(
            #""transaction_id":"5","original_transaction_id":"4","purchase_date_ms":1591000000000,"#
                + #""expires_date_ms":"1591723711000","cancellation_date_ms":"1591100000000","cancellation_reason":"1""#)
        #expect(entry.purchaseDateMs == 1_591_000_000_000)
        #expect(entry.cancellationDateMs == 1_591_100_000_000)
        #expect(entry.cancellationReason == "1")
    }

    // MARK: empty strings

    @Test func emptyStringsAreTreatedAsAbsent() throws {
        // Given a producer that sends "" for keys it has no value for
        let response = try decode(
            #"""
            {"status":0,"environment":"","latest_receipt":"","latest_receipt_info":[
              {"transaction_id":"9","original_transaction_id":"8","web_order_line_item_id":"","product_id":"p",
               "expires_date_ms":"1591723711000","cancellation_date_ms":"","cancellation_date":"",
               "cancellation_reason":"","is_upgraded":"","is_trial_period":"","in_app_ownership_type":""}
            ],"pending_renewal_info":[
              {"original_transaction_id":"8","auto_renew_status":"","expiration_intent":"","is_in_billing_retry_period":"",
               "grace_period_expires_date_ms":"","auto_renew_product_id":""}
            ]}
            """#)
        // Then every "" reads as missing, never as zero or false
        #expect(response.rawEnvironment == nil)
        #expect(response.latestReceipt == nil)
        let entry = try #require(response.transactions.first)
        #expect(entry.webOrderLineItemID == nil)
        #expect(entry.periodKey == "txn:9")
        #expect(entry.cancellationDateMs == nil)
        #expect(entry.cancellationReason == nil)
        #expect(entry.isUpgraded == false)
        #expect(entry.isTrialPeriod == nil)
        #expect(entry.ownershipType == nil)
        let renewal = try #require(response.pendingRenewals.first)
        #expect(renewal.autoRenewStatus == nil)
        #expect(renewal.expirationIntent == nil)
        #expect(renewal.isInBillingRetryPeriod == nil)
        #expect(renewal.gracePeriodExpiresDateMs == nil)
        #expect(renewal.autoRenewProductID == nil)
    }

    @Test func anEmptyMillisecondsStringFallsBackToTheDateString() throws {
        let entry = try decodeEntry(
            #""transaction_id":"1","original_transaction_id":"1","expires_date_ms":"","expires_date":"2020-06-09 17:28:31 Etc/GMT""#)
        #expect(entry.expiresDateMs == 1_591_723_711_000)
    }

    // MARK: retry flag

    @Test("is_retryable and is-retryable, as booleans and as 1/0", arguments: [
        (#""is_retryable":true"#, true),
        (#""is_retryable":false"#, false),
        (#""is_retryable":1"#, true),
        (#""is_retryable":0"#, false),
        (#""is_retryable":"true""#, true),
        (#""is_retryable":"0""#, false),
        (#""is-retryable":true"#, true),
        (#""is-retryable":false"#, false),
        (#""is-retryable":1"#, true),
        (#""is-retryable":0"#, false),
        (#""is-retryable":"1""#, true),
    ])
    func retryFlag(member: String, expected: Bool) throws {
        let response = try decode(#"{"status":21104,"environment":"Production",\#(member)}"#)
        #expect(response.isRetryable == expected)
    }

    @Test func aMissingRetryFlagIsUnknown() throws {
        let response = try decode(#"{"status":21104,"environment":"Production","exception":"x"}"#)
        #expect(response.isRetryable == nil)
    }

    // MARK: unknown keys, odd entries

    @Test func unknownKeysAreIgnoredAtEveryLevel() throws {
        // Given an answer full of keys subrecon doesn't know, including nested objects and legacy keys
        let response = try decode(
            #"""
            {"status":0,"environment":"Production","exception":"com.apple.jingle.Whatever",
             "some_future_key":{"nested":[1,2,{"x":null}]},"another":[true,false],
             "latest_receipt_info":[{"transaction_id":"1","original_transaction_id":"1","product_id":"p",
               "expires_date_ms":"1591723711000","expires_date_pst":"2020-06-09 10:28:31 America/Los_Angeles",
               "bvrs":"13","item_id":"1450637621","unknown_number":12.5,"unknown_object":{"a":"b"}}],
             "pending_renewal_info":[{"original_transaction_id":"1","auto_renew_status":"1","price_increase_status":"1",
               "offer_code_ref_name":"spring","unknown":[1]}]}
            """#)
        // Then they change nothing and nothing is counted as malformed
        #expect(response.status == .valid)
        #expect(response.environment == .production)
        #expect(response.transactions.count == 1)
        #expect(response.transactions.first?.expiresDateMs == 1_591_723_711_000)
        #expect(response.pendingRenewals.first?.autoRenewStatus == true)
        #expect(response.malformedEntryCount == 0)
    }

    @Test func entriesThatAreNotObjectsAreCountedAndTheOthersKept() throws {
        // Given a latest_receipt_info array with a number, a string, null and an array among two real entries
        let response = try decode(
            #"""
            {"status":0,"latest_receipt_info":[
              {"transaction_id":"1","original_transaction_id":"1","expires_date_ms":"1591723711000"},
              42, "junk", null, [1],
              {"transaction_id":"2","original_transaction_id":"1","expires_date_ms":"1594402111000"}
            ],"pending_renewal_info":[{"original_transaction_id":"1","auto_renew_status":"1"}, 7]}
            """#)
        // Then both objects are kept and the five odd elements are counted
        #expect(response.transactions.map(\.transactionID) == ["1", "2"])
        #expect(response.pendingRenewals.count == 1)
        #expect(response.malformedEntryCount == 5)
    }

    @Test func latestReceiptInfoThatIsNeitherAnArrayNorAnObjectIsCounted() throws {
        let response = try decode(#"{"status":0,"latest_receipt_info":"oops"}"#)
        #expect(response.transactions.isEmpty)
        #expect(response.malformedEntryCount == 1)
    }

    @Test func latestReceiptInfoAsASingleObjectIsOneTransaction() throws {
        // Given an iOS 6-style body where latest_receipt_info is one object and dates are bare digits
        let response = try decode(
            #"""
            {"status":0,"latest_receipt":"junk=","latest_receipt_info":{"original_transaction_id":"1000000057005439",
              "transaction_id":"1000000052076747","product_id":"fizzbuzz.autorenew1m",
              "web_order_line_item_id":"1000000027293289","expires_date":"1350157808000",
              "purchase_date":"2012-10-13 19:40:08 Etc/GMT","purchase_date_ms":"1350157208000",
              "expires_date_formatted":"2012-10-13 19:50:08 Etc/GMT"}}
            """#)
        // Then it is read as one transaction
        let entry = try #require(response.transactions.first)
        #expect(response.transactions.count == 1)
        #expect(response.malformedEntryCount == 0)
        #expect(entry.originalTransactionID == "1000000057005439")
        #expect(entry.transactionID == "1000000052076747")
        #expect(entry.expiresDateMs == 1_350_157_808_000)
        #expect(entry.purchaseDateMs == 1_350_157_208_000)
        #expect(response.latestReceipt == "junk=")
    }

    // MARK: date fallbacks

    @Test("expires_date is the fallback when expires_date_ms is missing", arguments: [
        (#""expires_date":"2020-06-09 17:28:31 Etc/GMT""#, Int64(1_591_723_711_000)),
        (#""expires_date":"1591723711000""#, Int64(1_591_723_711_000)),
        (#""expires_date":"2024-02-29 23:59:59 Etc/GMT""#, Int64(1_709_251_199_000)),
        (#""expires_date":"1970-01-01 00:00:00 Etc/GMT""#, Int64(0)),
        (#""expires_date":"1350157808000","expires_date_formatted":"2012-10-13 19:50:08 Etc/GMT""#, Int64(1_350_157_808_000)),
    ])
    func expiresDateFallback(field: String, expected: Int64) throws {
        let entry = try decodeEntry(#""transaction_id":"1","original_transaction_id":"1",\#(field)"#)
        #expect(entry.expiresDateMs == expected)
    }

    @Test func theGMTFallbackAgreesWithFoundation() throws {
        // Given a few instants rendered as Apple does
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for seconds: Int64 in [0, 951_782_400, 1_591_723_711, 1_709_164_800, 2_147_483_648, 4_102_444_800] {
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " Etc/GMT"
            // When read through the fallback
            let entry = try decodeEntry(#""transaction_id":"1","original_transaction_id":"1","expires_date":"\#(text)""#)
            // Then it is the same instant
            #expect(entry.expiresDateMs == seconds * 1000, "\(text)")
        }
    }

    @Test func theMillisecondsValueWinsOverTheDateString() throws {
        let entry = try decodeEntry(
            #""transaction_id":"1","original_transaction_id":"1","expires_date_ms":"1591723711000","expires_date":"2001-01-01 00:00:00 Etc/GMT""#)
        #expect(entry.expiresDateMs == 1_591_723_711_000)
    }

    @Test("unreadable dates are absent, not guessed", arguments: [
        #""expires_date":"2020-06-09 10:28:31 America/Los_Angeles""#,
        #""expires_date":"yesterday""#,
        #""expires_date_ms":"1.5e12""#,
        #""expires_date_ms":"-1""#,
        #""expires_date_ms":"12345678901234567890""#,
    ])
    func unreadableDates(field: String) throws {
        let entry = try decodeEntry(#""transaction_id":"1","original_transaction_id":"1",\#(field)"#)
        #expect(entry.expiresDateMs == nil)
    }

    // MARK: receipt object

    @Test func theReceiptsRequestDateAndBundleIDAreReadAndInAppIsIgnored() throws {
        // Given a receipt with request_date_ms, bundle_id and an in_app list (one entry not even an object)
        let response = try decode(
            #"""
            {"status":0,"environment":"Sandbox","receipt":{"receipt_type":"ProductionSandbox","adam_id":0,
              "bundle_id":"com.example.readingapp","request_date_ms":"1716201725230",
              "request_date":"2024-05-20 10:42:05 Etc/GMT","download_id":null,
              "in_app":[{"transaction_id":"111","original_transaction_id":"111","product_id":"stale",
                          "expires_date_ms":"1716200700000"}, 5]},
             "latest_receipt_info":[{"transaction_id":"222","original_transaction_id":"111","product_id":"fresh",
                                      "expires_date_ms":"1716201300000"}]}
            """#)
        // Then the receipt's clock and bundle are known
        #expect(response.requestDateMs == 1_716_201_725_230)
        #expect(response.bundleID == "com.example.readingapp")
        #expect(response.environment == .sandbox)
        // And only latest_receipt_info makes transactions; in_app neither adds entries nor counts as malformed
        #expect(response.transactions.map(\.transactionID) == ["222"])
        #expect(response.malformedEntryCount == 0)
    }

    @Test func anIOS6ReceiptNamesItsBundleWithBid() throws {
        let response = try decode(#"{"status":0,"receipt":{"bid":"com.foo.bar","request_date":"2019-02-10 06:49:48 Etc/GMT"}}"#)
        #expect(response.bundleID == "com.foo.bar")
        #expect(response.requestDateMs == 1_549_781_388_000)
    }

    @Test func aReceiptThatIsNotAnObjectDoesNotSpoilTheAnswer() throws {
        let response = try decode(
            #"{"status":0,"receipt":"??","latest_receipt_info":[{"transaction_id":"1","original_transaction_id":"1","expires_date_ms":"1"}]}"#)
        #expect(response.requestDateMs == nil)
        #expect(response.bundleID == nil)
        #expect(response.transactions.count == 1)
    }

    // MARK: legacy 21006

    @Test func aLegacy21006BodyBecomesTransactionsAndOnePendingRenewal() throws {
        // Given an iOS 6-style expired-subscription body (the shape of fixture 12)
        let response = try decode(
            #"""
            {"auto_renew_status":0,"status":21006,"auto_renew_product_id":"com.foo.product1",
             "expiration_intent":"1","is_in_billing_retry_period":"0",
             "latest_expired_receipt_info":{"original_transaction_id":"140000527258824","transaction_id":"140000527258824",
               "web_order_line_item_id":"140000151774411","product_id":"com.foo.product1","bid":"com.foo.bar",
               "expires_date":"1550386188000","expires_date_formatted":"2019-02-17 06:49:48 Etc/GMT",
               "purchase_date_ms":"1549781388000","is_trial_period":"true","is_in_intro_offer_period":"false"},
             "receipt":{"bid":"com.foo.bar","original_transaction_id":"140000527258824","expires_date":"1550386188000"}}
            """#)
        // Then the status is the legacy one
        #expect(response.status == .legacySubscriptionExpired)
        // And the expired info is the transaction list
        let entry = try #require(response.transactions.first)
        #expect(response.transactions.count == 1)
        #expect(entry.originalTransactionID == "140000527258824")
        #expect(entry.expiresDateMs == 1_550_386_188_000)
        #expect(entry.isTrialPeriod == true)
        #expect(entry.isInIntroOfferPeriod == false)
        // And the top-level renewal fields make exactly one pending renewal joined to it
        #expect(
            response.pendingRenewals == [
                PendingRenewal(
                    originalTransactionID: "140000527258824", productID: "com.foo.product1",
                    autoRenewProductID: "com.foo.product1", autoRenewStatus: false, expirationIntent: 1,
                    isInBillingRetryPeriod: false)
            ])
        #expect(response.bundleID == "com.foo.bar")
        // And the derived state is expired, voluntarily
        let state = SubscriptionStateDerivation.derive(
            transactions: response.transactions, pendingRenewals: response.pendingRenewals, nowMs: 1_600_000_000_000
        ).states.first
        #expect(state?.status == .expired)
        #expect(state?.expirationIntent == 1)
    }

    @Test func topLevelRenewalFieldsDoNotReplaceARealPendingRenewalList() throws {
        let response = try decode(
            #"""
            {"status":0,"auto_renew_status":"0",
             "latest_receipt_info":[{"transaction_id":"1","original_transaction_id":"1","expires_date_ms":"1"}],
             "pending_renewal_info":[{"original_transaction_id":"1","auto_renew_status":"1"}]}
            """#)
        #expect(response.pendingRenewals.count == 1)
        #expect(response.pendingRenewals.first?.autoRenewStatus == true)
    }

    // MARK: pending renewal fields

    @Test func pendingRenewalFieldsAreReadWhateverTheirJSONType() throws {
        let response = try decode(
            #"""
            {"status":0,"pending_renewal_info":[
              {"original_transaction_id":"2000000602198311","product_id":"m","auto_renew_product_id":"y",
               "auto_renew_status":"1","expiration_intent":"2","is_in_billing_retry_period":"1",
               "grace_period_expires_date_ms":"1716202260000"},
              {"original_transaction_id":2000000602198312,"auto_renew_status":0,"expiration_intent":5,
               "is_in_billing_retry_period":false,"grace_period_expires_date":"2024-05-20 10:51:00 Etc/GMT"}
            ]}
            """#)
        #expect(
            response.pendingRenewals == [
                PendingRenewal(
                    originalTransactionID: "2000000602198311", productID: "m", autoRenewProductID: "y",
                    autoRenewStatus: true, expirationIntent: 2, isInBillingRetryPeriod: true,
                    gracePeriodExpiresDateMs: 1_716_202_260_000),
                PendingRenewal(
                    originalTransactionID: "2000000602198312", autoRenewStatus: false, expirationIntent: 5,
                    isInBillingRetryPeriod: false, gracePeriodExpiresDateMs: 1_716_202_260_000),
            ])
    }

    @Test func largeIdentifiersStayExactDigitStrings() throws {
        // Given ids near the top of UInt64 / Int64 range, one of them sent as a number
        let entry = try decodeEntry(
            #""transaction_id":"18446744073709551615","original_transaction_id":9007199254740993,"web_order_line_item_id":"430000735512907","expires_date_ms":"1""#)
        #expect(entry.transactionID == "18446744073709551615")
        #expect(entry.originalTransactionID == "9007199254740993")
        #expect(entry.webOrderLineItemID == "430000735512907")
        #expect(entry.periodKey == "430000735512907")
    }

    @Test("boolean-ish transaction flags", arguments: [
        (#""true""#, true), (#""false""#, false), ("true", true), ("false", false), (#""1""#, true), ("0", false),
    ])
    func transactionFlags(value: String, expected: Bool) throws {
        let entry = try decodeEntry(
            #""transaction_id":"1","original_transaction_id":"1","expires_date_ms":"1","is_upgraded":\#(value),"is_trial_period":\#(value),"is_in_intro_offer_period":\#(value)"#)
        #expect(entry.isUpgraded == expected)
        #expect(entry.isTrialPeriod == expected)
        #expect(entry.isInIntroOfferPeriod == expected)
    }

    // MARK: AppleStatus

    @Test("every documented status round-trips to its own case", arguments: [
        (0, AppleStatus.valid),
        (21000, .requestNotReadable),
        (21002, .malformedReceiptData),
        (21003, .receiptNotAuthenticated),
        (21004, .sharedSecretMismatch),
        (21005, .serverUnavailable),
        (21006, .legacySubscriptionExpired),
        (21007, .sandboxReceiptSentToProduction),
        (21008, .productionReceiptSentToSandbox),
        (21009, .internalDataAccessError),
        (21010, .accountNotFound),
    ])
    func documentedStatuses(code: Int, expected: AppleStatus) {
        #expect(AppleStatus(rawValue: code) == expected)
        #expect(expected.rawValue == code)
        #expect(AppleStatus(rawValue: expected.rawValue) == expected)
        #expect(expected.description.hasPrefix("\(code) "))
    }

    @Test("211xx is Apple's internal error, keeping its code", arguments: [21100, 21101, 21104, 21150, 21199])
    func internalErrors(code: Int) {
        let status = AppleStatus(rawValue: code)
        #expect(status == .internalError(code))
        #expect(status.rawValue == code)
    }

    @Test("anything else is undocumented, keeping its code", arguments: [1, -1, 200, 21001, 21011, 21099, 21200, 99999])
    func undocumentedStatuses(code: Int) {
        let status = AppleStatus(rawValue: code)
        #expect(status == .undocumented(code))
        #expect(status.rawValue == code)
        #expect(status.description.contains("\(code)"))
    }
}
