import AppStoreSimulator
import Foundation
import Testing

/// Builds a request body like subrecon's.
func requestBody(_ receiptData: String, password: String? = "secret", excludeOld: Bool? = true) -> [UInt8] {
    var object: [String: Any] = ["receipt-data": receiptData]
    if let password { object["password"] = password }
    if let excludeOld { object["exclude-old-transactions"] = excludeOld }
    return Array(try! JSONSerialization.data(withJSONObject: object))
}

@Suite struct VerifyReceiptResponderTests {
    let now: Int64 = 1_716_192_930_417
    /// Scenario times are whole seconds before/after `now`.
    var base: Int64 { now - now % 1000 }
    let responder = VerifyReceiptResponder(sharedSecret: "secret")
    let day = SimulatedProducts.dayMs

    func answer(
        _ subscriber: SimulatedSubscriber, at nowMs: Int64? = nil, endpoint: SimulatorEndpoint? = nil,
        excludeOld: Bool? = true, password: String? = "secret"
    ) throws -> DecodedAnswer {
        let response = responder.respond(
            to: requestBody(SimulatedReceipt.encode(subscriber), password: password, excludeOld: excludeOld),
            endpoint: endpoint ?? (subscriber.environment == .sandbox ? .sandbox : .production),
            nowMs: nowMs ?? now)
        #expect(response.httpStatus == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        return try DecodedAnswer(response)
    }

    func answer(_ scenario: SimulatedScenario, id: Int64 = 42, excludeOld: Bool? = true) throws -> DecodedAnswer {
        try answer(scenario.subscriber(id: id, nowMs: now), excludeOld: excludeOld)
    }

    // MARK: Scenarios at their creation time

    @Test(arguments: SimulatedScenario.allCases, [true, false])
    func scenarioAnswersItsExpectedStatus(scenario: SimulatedScenario, excludeOld: Bool) throws {
        let decoded = try answer(scenario, excludeOld: excludeOld)
        #expect(decoded.status == scenario.expectedAppleStatus)
        #expect(decoded.statusIsNumber)
        #expect(decoded.environment == scenario.environment.rawValue)
        let derived = ReferenceStateDeriver.bestStatus(
            decoded, nowMs: now, productIDs: SimulatedProducts.groupAProductIDs)
        #expect(derived?.status == scenario.expectedStatus, "\(scenario): \(String(describing: derived))")
        if let product = scenario.expectedProductID, scenario.expectedStatus != nil {
            #expect(derived?.productID == product)
        }
        for (group, status) in scenario.expectedStatusByGroup {
            let products = group == SimulatedProducts.groupA
                ? SimulatedProducts.groupAProductIDs : SimulatedProducts.groupBProductIDs
            #expect(ReferenceStateDeriver.bestStatus(decoded, nowMs: now, productIDs: products)?.status == status)
        }
    }

    @Test(arguments: SimulatedScenario.allCases.filter { $0.expectedAppleStatus == 0 })
    func statusZeroBodiesUseAppleWireTypes(scenario: SimulatedScenario) throws {
        let decoded = try answer(scenario, excludeOld: false)
        let receipt = try #require(decoded.receipt)
        #expect(receipt["bundle_id"] as? String == SimulatedProducts.bundleID)
        #expect(receipt["request_date_ms"] as? String == String(now))
        #expect(receipt["adam_id"] is Int)
        for key in ["latest_receipt_info", "pending_renewal_info"] {
            for entry in decoded.rawEntries(key) {
                for (field, value) in entry {
                    #expect(value is String, "\(scenario) \(key).\(field) is not a string")
                }
            }
        }
        for entry in decoded.latestReceiptInfo ?? [] {
            for date in ["purchase_date", "original_purchase_date", "expires_date"] {
                let msValue = try #require(entry[date + "_ms"].flatMap { Int64($0) })
                #expect(entry[date]?.hasSuffix(" Etc/GMT") == true)
                #expect(entry[date + "_pst"]?.hasSuffix(" America/Los_Angeles") == true)
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'Etc/GMT'"
                let parsed = try #require(formatter.date(from: entry[date] ?? ""))
                #expect(Int64(parsed.timeIntervalSince1970) == msValue / 1000)
            }
            #expect(["true", "false"].contains(entry["is_trial_period"]))
            #expect(entry["quantity"] == "1")
            #expect(entry["subscription_group_identifier"] != nil)
        }
        #expect(decoded.inApp.contains { $0["product_id"] == SimulatedProducts.coins100 })
    }

    @Test func activeIsARenewedMonthlyWithAutoRenewOn() throws {
        let decoded = try answer(.active, excludeOld: false)
        let history = decoded.newestFirst
        #expect(history.count == 5, "bought 123 days ago: original + 4 renewals")
        let newest = history[0]
        #expect(ms(newest["purchase_date_ms"]) < now && ms(newest["expires_date_ms"]) > now)
        #expect(newest["original_transaction_id"] != newest["transaction_id"])
        let renewal = try #require(decoded.renewal(originalTransactionID: newest["original_transaction_id"]!))
        #expect(renewal["auto_renew_status"] == "1")
        #expect(renewal["expiration_intent"] == nil)
        #expect(renewal["is_in_billing_retry_period"] == nil)
        // `in_app` shows only the stored receipt's purchases, not the renewals.
        #expect(decoded.inApp.count == 2)
        #expect(decoded.inApp.contains { $0["transaction_id"] == $0["original_transaction_id"] && $0["product_id"] == SimulatedProducts.proMonthly })
        // Consecutive periods: each renewal starts where the previous one ended.
        let chronological = history.reversed().map { (ms($0["purchase_date_ms"]), ms($0["expires_date_ms"])) }
        for (previous, next) in zip(chronological, chronological.dropFirst()) {
            #expect(previous.1 == next.0)
        }
    }

    @Test func activeAutoRenewOffKeepsRunningWithRenewalOff() throws {
        let decoded = try answer(.activeAutoRenewOff)
        let newest = try #require(decoded.latestReceiptInfo?.first)
        #expect(ms(newest["expires_date_ms"]) > now)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(renewal["auto_renew_status"] == "0")
        #expect(renewal["expiration_intent"] == nil)
    }

    @Test func trialIsFlaggedAsTrial() throws {
        let decoded = try answer(.trialActive, excludeOld: false)
        #expect(decoded.latestReceiptInfo?.count == 1)
        #expect(decoded.latestReceiptInfo?.first?["is_trial_period"] == "true")
        #expect(ms(decoded.latestReceiptInfo?.first?["expires_date_ms"]) == base - 2 * day + 7 * day)
    }

    @Test func gracePeriodIsBetweenExpiryAndGraceEnd() throws {
        let decoded = try answer(.gracePeriod)
        let newest = try #require(decoded.latestReceiptInfo?.first)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(ms(newest["expires_date_ms"]) < now)
        #expect(ms(renewal["grace_period_expires_date_ms"]) > now)
        #expect(ms(renewal["grace_period_expires_date_ms"]) == ms(newest["expires_date_ms"]) + 16 * day)
        #expect(renewal["grace_period_expires_date"] != nil && renewal["grace_period_expires_date_pst"] != nil)
        #expect(renewal["is_in_billing_retry_period"] == "1")
        #expect(renewal["expiration_intent"] == "2")
        #expect(renewal["auto_renew_status"] == "1")
    }

    @Test func billingRetryIsPastGraceButStillRetrying() throws {
        let decoded = try answer(.billingRetry)
        let newest = try #require(decoded.latestReceiptInfo?.first)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(ms(newest["expires_date_ms"]) < now)
        #expect(ms(renewal["grace_period_expires_date_ms"]) < now)
        #expect(renewal["is_in_billing_retry_period"] == "1")
        #expect(renewal["expiration_intent"] == "2")
    }

    @Test func billingRecoveryStartsANewPeriodAtTheRecovery() throws {
        let decoded = try answer(.billingRecovered, excludeOld: false)
        let newest = decoded.newestFirst[0]
        #expect(ms(newest["purchase_date_ms"]) == base - 25 * day)
        #expect(ms(newest["expires_date_ms"]) == base + 5 * day)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(renewal["is_in_billing_retry_period"] == nil)
        #expect(renewal["expiration_intent"] == nil)
    }

    @Test func expiredScenariosCarryTheirIntent() throws {
        let voluntary = try #require(try answer(.expired).pendingRenewalInfo?.first)
        #expect(voluntary["expiration_intent"] == "1")
        #expect(voluntary["auto_renew_status"] == "0")
        #expect(voluntary["is_in_billing_retry_period"] == "0")
        let billing = try #require(try answer(.billingExpired).pendingRenewalInfo?.first)
        #expect(billing["expiration_intent"] == "2")
        #expect(billing["is_in_billing_retry_period"] == "0")
        #expect(billing["grace_period_expires_date_ms"] == nil)
    }

    @Test func refundCancelsTheNewestTransaction() throws {
        let decoded = try answer(.refunded, excludeOld: false)
        let newest = decoded.newestFirst[0]
        #expect(ms(newest["cancellation_date_ms"]) == base - 5 * day)
        #expect(newest["cancellation_reason"] == "1")
        #expect(newest["is_upgraded"] == nil)
        #expect(ms(newest["expires_date_ms"]) > now, "a refund does not change expires_date")
        #expect(decoded.newestFirst[1]["cancellation_date_ms"] == nil)
        #expect(decoded.pendingRenewalInfo?.first?["auto_renew_status"] == "0")
    }

    @Test func upgradeCancelsTheRunningPeriodAndStartsPremium() throws {
        let decoded = try answer(.upgraded, excludeOld: false)
        let upgradeAt = base - 10 * day
        let history = decoded.latestReceiptInfo ?? []
        #expect(Set(history.map { $0["original_transaction_id"] }).count == 1)
        let superseded = try #require(history.first { $0["is_upgraded"] == "true" })
        #expect(superseded["product_id"] == SimulatedProducts.proMonthly)
        #expect(ms(superseded["cancellation_date_ms"]) == upgradeAt)
        #expect(superseded["cancellation_reason"] == "0")
        let premium = try #require(history.first { $0["product_id"] == SimulatedProducts.premiumMonthly })
        #expect(ms(premium["purchase_date_ms"]) == upgradeAt)
        #expect(premium["cancellation_date_ms"] == nil)
        let renewal = try #require(decoded.pendingRenewalInfo?.first)
        #expect(renewal["product_id"] == SimulatedProducts.premiumMonthly)
        #expect(renewal["auto_renew_product_id"] == SimulatedProducts.premiumMonthly)
        // exclude-old-transactions keeps the premium transaction, not the upgraded-away one.
        let trimmed = try answer(.upgraded, excludeOld: true)
        #expect(trimmed.latestReceiptInfo?.map { $0["product_id"] } == [SimulatedProducts.premiumMonthly])
    }

    @Test func downgradeIsPendingUntilTheNextRenewal() throws {
        let renewal = try #require(try answer(.downgradePending).pendingRenewalInfo?.first)
        #expect(renewal["product_id"] == SimulatedProducts.proYearly)
        #expect(renewal["auto_renew_product_id"] == SimulatedProducts.proMonthly)
        #expect(renewal["auto_renew_status"] == "1")
    }

    @Test func familySharedTransactionsSaySo() throws {
        let decoded = try answer(.familyShared)
        #expect(decoded.latestReceiptInfo?.allSatisfy { $0["in_app_ownership_type"] == "FAMILY_SHARED" } == true)
        #expect(try answer(.active).latestReceiptInfo?.first?["in_app_ownership_type"] == "PURCHASED")
    }

    @Test func twoGroupsHaveTwoOriginalTransactions() throws {
        let decoded = try answer(.twoGroups, excludeOld: true)
        let entries = try #require(decoded.latestReceiptInfo)
        #expect(entries.count == 2)
        #expect(Set(entries.map { $0["original_transaction_id"] }).count == 2)
        #expect(Set(entries.map { $0["subscription_group_identifier"] }) == [SimulatedProducts.groupA, SimulatedProducts.groupB])
        #expect(decoded.pendingRenewalInfo?.count == 2)
        let news = try #require(entries.first { $0["product_id"] == SimulatedProducts.newsMonthly })
        #expect(ms(news["expires_date_ms"]) < now)
        #expect(decoded.renewal(originalTransactionID: news["original_transaction_id"]!)?["expiration_intent"] == "1")
    }

    @Test func fixedStatusBodies() throws {
        let gone = responder.respond(
            to: requestBody(SimulatedReceipt.encode(SimulatedScenario.accountGone.subscriber(id: 1, nowMs: now))),
            endpoint: .production, nowMs: now)
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"environment":"Production","status":21010,"is_retryable":false}"#)
        #expect(gone.appleStatus == 21010)
        let invalid = try answer(.invalidReceipt)
        #expect(invalid.status == 21003)
        #expect(invalid.receipt == nil && invalid.latestReceiptInfo == nil)
    }

    @Test func noSubscriptionsHasOnlyTheConsumable() throws {
        let decoded = try answer(.noSubscriptions, excludeOld: false)
        #expect(decoded.status == 0)
        #expect(decoded.inApp.map { $0["product_id"] } == [SimulatedProducts.coins100])
        #expect(decoded.object["latest_receipt_info"] == nil)
        #expect(decoded.object["pending_renewal_info"] == nil)
        #expect(decoded.object["latest_receipt"] == nil)
    }

    @Test func answersAreRealisticSize() throws {
        let subscriber = SimulatedScenario.active.subscriber(id: 7, nowMs: now)
        let trimmed = responder.respond(to: requestBody(SimulatedReceipt.encode(subscriber)), endpoint: .production, nowMs: now)
        #expect((5_000...8_500).contains(trimmed.body.count), "\(trimmed.body.count) bytes")
    }

    // MARK: Request checks and routing

    @Test func passwordMustMatchTheConfiguredSecret() throws {
        let subscriber = SimulatedScenario.active.subscriber(id: 1, nowMs: now)
        #expect(try answer(subscriber, password: "wrong").status == 21004)
        #expect(try answer(subscriber, password: nil).status == 21004)
        #expect(try answer(subscriber, password: "secret").status == 0)
        let open = VerifyReceiptResponder(sharedSecret: nil)
        let body = requestBody(SimulatedReceipt.encode(subscriber), password: "anything")
        #expect(open.respond(to: body, endpoint: .production, nowMs: now).appleStatus == 0)
    }

    @Test func environmentsAreRouted() throws {
        let sandbox = SimulatedScenario.sandboxActive.subscriber(id: 1, nowMs: now)
        let production = SimulatedScenario.active.subscriber(id: 2, nowMs: now)
        #expect(try answer(sandbox, endpoint: .production).status == 21007)
        #expect(try answer(sandbox, endpoint: .sandbox).status == 0)
        #expect(try answer(sandbox, endpoint: .sandbox).environment == "Sandbox")
        #expect(try answer(sandbox, endpoint: .sandbox).receipt?["receipt_type"] as? String == "ProductionSandbox")
        #expect(try answer(production, endpoint: .sandbox).status == 21008)
        #expect(try answer(production, endpoint: .production).status == 0)
        // Routing comes before the secret check: the production server cannot judge a sandbox receipt.
        #expect(try answer(sandbox, endpoint: .production, password: "wrong").status == 21007)
    }

    @Test(arguments: [
        Array("".utf8), Array("not json".utf8), Array("[1,2]".utf8), Array(#"{"password":"secret"}"#.utf8),
        Array(#"{"receipt-data":42}"#.utf8),
    ])
    func unreadableRequestsAnswer21000(body: [UInt8]) throws {
        let response = responder.respond(to: body, endpoint: .production, nowMs: now)
        #expect(response.httpStatus == 200)
        #expect(try DecodedAnswer(response).status == 21000)
    }

    @Test func foreignReceiptDataAnswers21002() throws {
        let response = responder.respond(
            to: requestBody("MIIUUQYJKoZIhvcNAQcCoIIUQjCCFD4CAQExDzANBglghkgBZQMEAgEFADCC"),
            endpoint: .production, nowMs: now)
        #expect(try DecodedAnswer(response).status == 21002)
    }

    // MARK: exclude-old-transactions, ordering, ids

    @Test func excludeOldTransactionsKeepsTheNewestPerOriginalTransaction() throws {
        for scenario in [SimulatedScenario.active, .twoGroups, .refunded, .billingRecovered, .expired] {
            let full = try answer(scenario, excludeOld: false)
            let trimmed = try answer(scenario, excludeOld: true)
            let fullEntries = try #require(full.latestReceiptInfo)
            let trimmedEntries = try #require(trimmed.latestReceiptInfo)
            let originals = Set(fullEntries.map { $0["original_transaction_id"]! })
            #expect(trimmedEntries.count == originals.count, "\(scenario)")
            for original in originals {
                let newest = full.transactions(originalTransactionID: original)
                    .max { ms($0["purchase_date_ms"]) < ms($1["purchase_date_ms"]) }
                #expect(trimmed.transactions(originalTransactionID: original) == [newest!], "\(scenario)")
            }
            #expect(full.pendingRenewalInfo == trimmed.pendingRenewalInfo)
            #expect(full.latestReceipt == trimmed.latestReceipt)
        }
    }

    @Test func missingExcludeFlagMeansFullHistory() throws {
        #expect(try answer(.active, excludeOld: nil).latestReceiptInfo?.count == 5)
    }

    @Test(arguments: 1...20)
    func fullHistoryIsNeverSorted(id: Int) throws {
        let purchases = try #require(try answer(.active, id: Int64(id), excludeOld: false).latestReceiptInfo)
            .map { ms($0["purchase_date_ms"]) }
        #expect(purchases != purchases.sorted())
        #expect(purchases != purchases.sorted(by: >))
    }

    @Test func idsAreStableAcrossCallsAndDistinct() throws {
        let first = try answer(.upgraded, excludeOld: false)
        let second = try answer(.upgraded, excludeOld: false)
        #expect(first.latestReceiptInfo == second.latestReceiptInfo)
        let entries = try #require(first.latestReceiptInfo)
        #expect(Set(entries.map { $0["transaction_id"] }).count == entries.count)
        #expect(Set(entries.map { $0["web_order_line_item_id"] }).count == entries.count)
        let originals = entries.filter { $0["transaction_id"] == $0["original_transaction_id"] }
        #expect(originals.count == 1)
        let other = try answer(.upgraded, id: 43, excludeOld: false)
        #expect(Set(entries.map { $0["transaction_id"] }).isDisjoint(with: other.latestReceiptInfo!.map { $0["transaction_id"] }))
        // Digit strings that fit in Int64.
        #expect(entries.allSatisfy { Int64($0["transaction_id"]!) != nil && Int64($0["web_order_line_item_id"]!) != nil })
    }

    @Test func latestReceiptDecodesToTheSameAccount() throws {
        let subscriber = SimulatedScenario.active.subscriber(id: 9, nowMs: now)
        let latest = try #require(try answer(subscriber).latestReceipt)
        var decoded = try #require(SimulatedReceipt.decode(latest))
        #expect(decoded.revision == 5)
        decoded.revision = subscriber.revision
        #expect(decoded == subscriber)
        // Verifying the rotated receipt gives the same answer.
        #expect(try answer(SimulatedReceipt.decode(latest)!).latestReceiptInfo == answer(subscriber).latestReceiptInfo)
    }
}
