@testable import AppStoreSimulator
import Foundation
import Testing

/// The money scenarios: every billed period of the Server API history carries the price, currency,
/// storefront, reason, offer and revocation the scenario promises, and verifyReceipt tells the
/// same story (the same periods, cancellations, trial and intro flags, and the same state).
@Suite struct LedgerScenarioTests {
    let now: Int64 = 1_716_192_930_417
    static let authority = try! SimulatedSigningAuthority(nowMs: 1_716_192_930_417)

    /// What one billed period must say, written out independently of the simulator's code.
    struct Period: CustomStringConvertible {
        var product: String
        var price: Int64
        var reason: String
        var offerDiscountType: String?
        var offerPeriod: String?
        var revocationType: String?
        var revocationPercentage: Int64?
        var revoked = false
        var upgraded = false

        var description: String {
            "\(product) \(price) \(reason) \(offerDiscountType ?? "-") \(revocationType ?? "-") revoked=\(revoked)"
        }

        static func purchase(_ product: String, _ price: Int64) -> Period {
            Period(product: product, price: price, reason: "PURCHASE")
        }

        static func renewals(_ count: Int, _ product: String, _ price: Int64) -> [Period] {
            Array(repeating: Period(product: product, price: price, reason: "RENEWAL"), count: count)
        }
    }

    static let monthly = SimulatedProducts.proMonthly
    static let yearly = SimulatedProducts.proYearly
    static let weekly = SimulatedProducts.proWeekly
    static let premium = SimulatedProducts.premiumMonthly

    /// Each scenario's periods, oldest first.
    static func expectedPeriods(_ scenario: SimulatedLedgerScenario) -> [Period] {
        switch scenario {
        case .monthlyUSD:
            return [.purchase(monthly, 9_990)] + Period.renewals(13, monthly, 9_990)
        case .monthlyEURChurned:
            return [.purchase(monthly, 9_990)] + Period.renewals(7, monthly, 9_990)
        case .yearlyJPY:
            return [.purchase(yearly, 15_000_000)] + Period.renewals(1, yearly, 15_000_000)
        case .weeklyUSD:
            return [.purchase(weekly, 2_990)] + Period.renewals(9, weekly, 2_990)
        case .trialConvertedEUR:
            var trial = Period.purchase(monthly, 0)
            trial.offerDiscountType = "FREE_TRIAL"
            trial.offerPeriod = "P1W"
            return [trial] + Period.renewals(6, monthly, 9_990)
        case .trialNotConverted:
            var trial = Period.purchase(monthly, 0)
            trial.offerDiscountType = "FREE_TRIAL"
            trial.offerPeriod = "P1W"
            return [trial]
        case .introPayUpFrontUSD:
            var intro = Period.purchase(monthly, 14_990)
            intro.offerDiscountType = "PAY_UP_FRONT"
            intro.offerPeriod = "P3M"
            return [intro] + Period.renewals(5, monthly, 9_990)
        case .fullRefundUSD:
            var refunded = Period.renewals(1, monthly, 9_990)[0]
            refunded.revoked = true
            refunded.revocationType = "REFUND_FULL"
            return [.purchase(monthly, 9_990)] + Period.renewals(3, monthly, 9_990) + [refunded]
        case .proratedRefundGBP:
            var refunded = Period.purchase(yearly, 89_990)
            refunded.revoked = true
            refunded.revocationType = "REFUND_PRORATED"
            refunded.revocationPercentage = 42_500
            return [refunded]
        case .refundReversedGBP:
            return [.purchase(monthly, 8_990)] + Period.renewals(5, monthly, 8_990)
        case .familySharedEUR:
            return [.purchase(monthly, 9_990)] + Period.renewals(3, monthly, 9_990)
        case .upgradeUSD:
            var upgraded = Period.renewals(1, monthly, 9_990)[0]
            upgraded.revoked = true
            upgraded.upgraded = true
            return [.purchase(monthly, 9_990)] + Period.renewals(4, monthly, 9_990) + [upgraded]
                + [.purchase(premium, 14_990)] + Period.renewals(2, premium, 14_990)
        case .sandboxUSD:
            return [.purchase(monthly, 9_990)] + Period.renewals(4, monthly, 9_990)
        }
    }

    static func id(_ scenario: SimulatedLedgerScenario) -> Int64 {
        2_000 + Int64(SimulatedLedgerScenario.allCases.firstIndex(of: scenario)!)
    }

    func account(_ scenario: SimulatedLedgerScenario) -> SimulatedSubscriber {
        scenario.subscriber(id: Self.id(scenario), nowMs: now)
    }

    func responder(_ accounts: SimulatedSubscriber...) -> ServerAPIResponder {
        let registry = SimulatedAccountRegistry()
        for account in accounts { registry.register(account) }
        return ServerAPIResponder(
            authority: LazySigningAuthority(Self.authority), registry: registry,
            bundleID: SimulatedProducts.bundleID, appAppleID: 1, historyPageSize: 200)
    }

    /// The decoded `signedTransactions` of the whole history of `account` at `nowMs`.
    func history(_ account: SimulatedSubscriber, at nowMs: Int64) throws -> [[String: Any]] {
        let path = ServerAPIEndpoint.transactionHistory.pathPrefix(in: account.environment) + "\(originalID(account.id))"
        let answer = responder(account).respond(to: try #require(ServerAPIRoute(path: Substring(path))), query: nil, nowMs: nowMs)
        #expect(answer.httpStatus == 200)
        let body = try jsonObject(answer.body)
        #expect(body["hasMore"] as? Bool == false)
        let signed = try #require(body["signedTransactions"] as? [String])
        return try signed.map { try DecodedJWS($0).payload }
    }

    /// The Apple status of the only subscription of `account` at `nowMs`, and its signed payloads.
    func statuses(_ account: SimulatedSubscriber, at nowMs: Int64) throws -> (status: Int, transaction: [String: Any], renewal: [String: Any]) {
        let path = ServerAPIEndpoint.subscriptionStatuses.pathPrefix(in: account.environment) + "\(originalID(account.id))"
        let answer = responder(account).respond(to: try #require(ServerAPIRoute(path: Substring(path))), query: nil, nowMs: nowMs)
        #expect(answer.httpStatus == 200)
        let items = try lastTransactions(try jsonObject(answer.body))
        try #require(items.count == 1)
        let item = items[0].item
        return (
            try #require(item["status"] as? Int),
            try DecodedJWS(try #require(item["signedTransactionInfo"] as? String)).payload,
            try DecodedJWS(try #require(item["signedRenewalInfo"] as? String)).payload)
    }

    func int64(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    @Test(arguments: SimulatedLedgerScenario.allCases)
    func everyPeriodCarriesItsMoney(scenario: SimulatedLedgerScenario) throws {
        let account = account(scenario)
        #expect(account.storefront == scenario.storefront)
        #expect(account.environment == scenario.environment)
        let transactions = try history(account, at: now).sorted { int64($0["purchaseDate"])! < int64($1["purchaseDate"])! }
        let expected = Self.expectedPeriods(scenario)
        #expect(transactions.count == expected.count, "\(scenario)")
        #expect(transactions.count == scenario.expectedTransactionCount, "\(scenario)")
        let ownership = scenario == .familySharedEUR ? "FAMILY_SHARED" : "PURCHASED"
        var previousExpiry: Int64?
        for (index, (payload, period)) in zip(transactions, expected).enumerated() {
            let context = "\(scenario) #\(index): \(period)"
            #expect(payload["productId"] as? String == period.product, "\(context)")
            #expect(int64(payload["price"]) == period.price, "\(context)")
            #expect(payload["currency"] as? String == scenario.storefront.currency, "\(context)")
            #expect(payload["storefront"] as? String == scenario.storefront.rawValue, "\(context)")
            #expect(payload["storefrontId"] as? String == scenario.storefront.storefrontID, "\(context)")
            #expect(payload["transactionReason"] as? String == period.reason, "\(context)")
            #expect(payload["inAppOwnershipType"] as? String == ownership, "\(context)")
            #expect(payload["environment"] as? String == scenario.environment.rawValue, "\(context)")
            #expect(payload["offerType"] as? Int == (period.offerDiscountType == nil ? nil : 1), "\(context)")
            #expect(payload["offerDiscountType"] as? String == period.offerDiscountType, "\(context)")
            #expect(payload["offerPeriod"] as? String == period.offerPeriod, "\(context)")
            #expect((payload["revocationDate"] != nil) == period.revoked, "\(context)")
            #expect(payload["revocationType"] as? String == period.revocationType, "\(context)")
            #expect(int64(payload["revocationPercentage"]) == period.revocationPercentage, "\(context)")
            #expect((payload["isUpgraded"] as? Bool == true) == period.upgraded, "\(context)")
            // Back to back: each period starts where the one before ended, or at the upgrade.
            let purchase = try #require(int64(payload["purchaseDate"]))
            if let previousExpiry, !(index > 0 && expected[index - 1].upgraded) {
                #expect(purchase == previousExpiry, "\(context)")
            }
            previousExpiry = int64(payload["expiresDate"])
        }
        #expect(int64(transactions.first?["purchaseDate"]) == account.subscriptions[0].firstPurchaseMs)

        let (status, newest, renewal) = try statuses(account, at: now)
        #expect(status == appleStatusCode(scenario.expectedStatus), "\(scenario)")
        #expect(newest["productId"] as? String == scenario.expectedProductID, "\(scenario)")
        if renewal["autoRenewStatus"] as? Int == 1 {
            #expect(renewal["currency"] as? String == scenario.storefront.currency)
            #expect(int64(renewal["renewalPrice"]) == expected.last?.price, "the next renewal bills the regular price")
        } else {
            #expect(renewal["renewalPrice"] == nil)
        }
    }

    /// When each revocation happened, relative to the scenario's now (whole seconds).
    @Test func revocationsHappenWhenTheScenariosSay() throws {
        let day = SimulatedProducts.dayMs
        let whole = now / 1000 * 1000
        func revocationDates(_ scenario: SimulatedLedgerScenario) throws -> [Int64] {
            try history(account(scenario), at: now).compactMap { int64($0["revocationDate"]) }
        }
        #expect(try revocationDates(.fullRefundUSD) == [whole - 140 * day])
        #expect(try revocationDates(.proratedRefundGBP) == [whole - 60 * day])
        #expect(try revocationDates(.upgradeUSD) == [whole - 85 * day])
        #expect(try revocationDates(.refundReversedGBP).isEmpty)
        // The upgrade's revocation is no refund: reason 0 and no type.
        let upgraded = try #require(try history(account(.upgradeUSD), at: now).first { $0["isUpgraded"] as? Bool == true })
        #expect(upgraded["revocationReason"] as? Int == 0)
        #expect(upgraded["revocationType"] == nil)
        let refunded = try #require(try history(account(.fullRefundUSD), at: now).last)
        #expect(refunded["revocationReason"] as? Int == 1)
    }

    /// Yen have no minor unit: every JPY price is whole yen, in the table and in the history.
    @Test func yenPricesAreWholeYen() throws {
        for product in SimulatedProducts.subscriptionProductIDs {
            #expect(SimulatedPriceTable.priceMilliunits(of: product, currency: "JPY") % 1000 == 0, "\(product)")
            #expect(SimulatedPriceTable.introPriceMilliunits(of: product, currency: "JPY") % 1000 == 0, "\(product)")
        }
        let prices = try history(account(.yearlyJPY), at: now).compactMap { int64($0["price"]) }
        #expect(prices == [15_000_000, 15_000_000], "JPY 15000 a year")
        #expect(prices.allSatisfy { $0 % 1000 == 0 })
    }

    /// The existing scenarios keep the USA storefront and the USD prices they always had.
    @Test func theDefaultIsTheUSAStorefrontAtTheOldUSDPrices() throws {
        let account = SimulatedScenario.upgraded.subscriber(id: 3, nowMs: now)
        #expect(account.storefront == .usa)
        #expect(ServerAPIIdentifiers.priceMilliunits(of: SimulatedProducts.proMonthly) == 9_990)
        #expect(ServerAPIIdentifiers.priceMilliunits(of: SimulatedProducts.proYearly) == 99_990)
        #expect(ServerAPIIdentifiers.priceMilliunits(of: SimulatedProducts.premiumMonthly) == 14_990)
        #expect(ServerAPIIdentifiers.priceMilliunits(of: SimulatedProducts.newsMonthly) == 4_990)
        for payload in try history(account, at: now) {
            #expect(payload["storefront"] as? String == "USA")
            #expect(payload["storefrontId"] as? String == "143441")
            #expect(payload["currency"] as? String == "USD")
            #expect(payload["offerType"] == nil)
        }
    }

    /// One timeline, two APIs: at several "now"s, verifyReceipt's `latest_receipt_info` holds the
    /// history's periods with the same dates, cancellations and offer flags, and the reference
    /// derivation from it reaches the state the status endpoint reports.
    @Test(arguments: SimulatedLedgerScenario.allCases)
    func verifyReceiptTellsTheSameStory(scenario: SimulatedLedgerScenario) throws {
        let account = account(scenario)
        let endpoint: SimulatorEndpoint = scenario.environment == .production ? .production : .sandbox
        let day = SimulatedProducts.dayMs
        let later: [Int64] = scenario == .sandboxUSD
            ? [0, 60_000, 7 * 60_000, 3_600_000] : [0, 3 * day, 17 * day, 40 * day, 400 * day]
        for offset in later {
            let at = now + offset
            let context = "\(scenario) +\(offset / 60_000) min"
            let answer = try DecodedAnswer(VerifyReceiptResponder(sharedSecret: nil).respond(
                to: requestBody(SimulatedReceipt.encode(account), excludeOld: false), endpoint: endpoint, nowMs: at))
            #expect(answer.status == 0, "\(context)")
            let receiptEntries = Dictionary(uniqueKeysWithValues: (answer.latestReceiptInfo ?? []).map { ($0["transaction_id"] ?? "", $0) })
            let transactions = try history(account, at: at)
            #expect(Set(receiptEntries.keys) == Set(transactions.compactMap { $0["transactionId"] as? String }), "\(context)")
            for payload in transactions {
                let id = try #require(payload["transactionId"] as? String)
                let entry = try #require(receiptEntries[id], "\(context) \(id)")
                func text(_ key: String) -> String? { int64(payload[key]).map { "\($0)" } ?? payload[key] as? String }
                #expect(text("purchaseDate") == entry["purchase_date_ms"], "\(context) \(id)")
                #expect(text("expiresDate") == entry["expires_date_ms"], "\(context) \(id)")
                #expect(text("revocationDate") == entry["cancellation_date_ms"], "\(context) \(id)")
                #expect(text("revocationReason") == entry["cancellation_reason"], "\(context) \(id)")
                #expect((payload["isUpgraded"] as? Bool == true) == (entry["is_upgraded"] == "true"), "\(context) \(id)")
                #expect(text("inAppOwnershipType") == entry["in_app_ownership_type"], "\(context) \(id)")
                #expect(text("productId") == entry["product_id"], "\(context) \(id)")
                let discount = payload["offerDiscountType"] as? String
                #expect((discount == "FREE_TRIAL") == (entry["is_trial_period"] == "true"), "\(context) \(id)")
                #expect((discount == "PAY_UP_FRONT") == (entry["is_in_intro_offer_period"] == "true"), "\(context) \(id)")
            }
            let derived = try #require(
                ReferenceStateDeriver.derive(answer, nowMs: at, productIDs: SimulatedProducts.groupAProductIDs)[
                    "\(originalID(account.id))"])
            let (status, newest, _) = try statuses(account, at: at)
            #expect(appleStatusCode(derived.status) == status, "\(context): derived \(derived.status)")
            #expect(derived.productID == newest["productId"] as? String, "\(context)")
            if offset == 0 {
                #expect(derived.status == scenario.expectedStatus, "\(context)")
                #expect(derived.productID == scenario.expectedProductID, "\(context)")
            }
        }
    }

    /// What each scenario's whole timeline announces, in time order.
    static let expectedNotifications: [SimulatedLedgerScenario: [String]] = [
        .monthlyUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 13),
        .monthlyEURChurned: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 7)
            + ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"],
        .yearlyJPY: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"],
        .weeklyUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 9),
        .trialConvertedEUR: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 6),
        .trialNotConverted: ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"],
        .introPayUpFrontUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 5),
        .fullRefundUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 4) + ["REFUND"],
        .proratedRefundGBP: ["SUBSCRIBED/INITIAL_BUY", "REFUND"],
        .refundReversedGBP: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_RENEW", "REFUND", "REFUND_REVERSED",
                             "DID_RENEW", "DID_RENEW"],
        .familySharedEUR: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 3),
        .upgradeUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 5)
            + ["DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_RENEW", "DID_RENEW"],
        .sandboxUSD: ["SUBSCRIBED/INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 4)
            + ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"],
    ]

    @Test(arguments: SimulatedLedgerScenario.allCases)
    func everyScenarioAnnouncesWhatItsTimelineImplies(scenario: SimulatedLedgerScenario) throws {
        let account = account(scenario)
        let notifications = NotificationEventTests.simulator.notifications(for: account, afterMs: 0, throughMs: now)
        #expect(notifications.map(eventName) == Self.expectedNotifications[scenario], "\(scenario)")
        let last = try #require(notifications.last)
        let status = try #require(try DecodedNotification(last.signedPayload).status)
        #expect(status == appleStatusCode(scenario.expectedStatus), "\(scenario)")
        // The nested transactions carry the money too.
        for notification in notifications {
            let transaction = try #require(try DecodedNotification(notification.signedPayload).transaction?.payload)
            #expect(transaction["currency"] as? String == scenario.storefront.currency, "\(scenario)")
            #expect(transaction["storefront"] as? String == scenario.storefront.rawValue, "\(scenario)")
        }
    }

    /// A reversed refund: REFUND carries the revocation, REFUND_REVERSED the same transaction
    /// without it; a history reader who saw the refund sees the transaction again, reinstated.
    @Test func aReversedRefundIsRefundedThenReinstated() throws {
        let account = account(.refundReversedGBP)
        let day = SimulatedProducts.dayMs
        let whole = now / 1000 * 1000
        let notifications = NotificationEventTests.simulator.notifications(for: account, afterMs: 0, throughMs: now)
        let refund = try #require(notifications.first { $0.type == .refund })
        let reversal = try #require(notifications.first { $0.type == .refundReversed })
        #expect(refund.signedDateMs == whole - 60 * day)
        #expect(reversal.signedDateMs == whole - 53 * day)
        let refunded = try #require(try DecodedNotification(refund.signedPayload).transaction?.payload)
        let reinstated = try #require(try DecodedNotification(reversal.signedPayload).transaction?.payload)
        #expect(refunded["transactionId"] as? String == reinstated["transactionId"] as? String)
        #expect(int64(refunded["revocationDate"]) == whole - 60 * day)
        #expect(refunded["revocationType"] as? String == "REFUND_FULL")
        #expect(try DecodedNotification(refund.signedPayload).status == 5)
        #expect(reinstated["revocationDate"] == nil)
        #expect(reinstated["revocationType"] == nil)
        #expect(try DecodedNotification(reversal.signedPayload).status == 1)

        // Read between the refund and the reversal, then again after it.
        let path = ServerAPIEndpoint.transactionHistory.pathPrefix + "\(originalID(account.id))"
        let route = try #require(ServerAPIRoute(path: Substring(path)))
        let api = responder(account)
        let before = try jsonObject(api.respond(to: route, query: nil, nowMs: whole - 56 * day).body)
        let seen = try (before["signedTransactions"] as? [String] ?? []).map { try DecodedJWS($0).payload }
        #expect(seen.count == 4)
        #expect(seen.last?["revocationType"] as? String == "REFUND_FULL")
        let revision = try #require(before["revision"] as? String)
        let after = try jsonObject(api.respond(to: route, query: Substring("revision=\(revision)"), nowMs: whole - 50 * day).body)
        let changed = try (after["signedTransactions"] as? [String] ?? []).map { try DecodedJWS($0).payload }
        #expect(changed.map { $0["transactionId"] as? String } == [seen.last?["transactionId"] as? String])
        #expect(changed.first?["revocationDate"] == nil)
    }

    /// The ledger scenarios work through a running simulator's Server API once registered, as the
    /// demo registers them, at the transaction id the app receipt names.
    @Test func registeredLedgerAccountsAnswerOverHTTP() async throws {
        let options = SimulatorOptions(sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock)
        try await withSimulator(options) { simulator in
            let samples = SimulatedLedgerScenario.subscribers(firstID: 2_000, nowMs: now)
            #expect(samples.map(\.scenario) == SimulatedLedgerScenario.allCases)
            simulator.register(samples.map(\.subscriber))
            for (scenario, account) in samples {
                #expect(account.id == Self.id(scenario))
                let answer = try await apiGet(simulator.historyURL(originalID(account.id), scenario.environment))
                #expect(answer.status == 200, "\(scenario)")
                let signed = try #require(try jsonObject(answer.body)["signedTransactions"] as? [String])
                #expect(signed.count == min(scenario.expectedTransactionCount, SimulatorOptions().historyPageSize), "\(scenario)")
                let statuses = try await apiGet(simulator.statusesURL(originalID(account.id), scenario.environment))
                #expect(statuses.status == 200, "\(scenario)")
            }
        }
    }
}
