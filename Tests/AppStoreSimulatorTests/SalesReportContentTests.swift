@testable import AppStoreSimulator
import Foundation
import Testing

/// What the simulator's Summary Sales Reports say: Apple's file shape, billed periods on their
/// Pacific day, refunds and partial refunds on theirs, nothing for family members, the sandbox,
/// free periods, upgrades or reversed refunds, and Pacific days that follow daylight saving.
/// Expected days are computed with Foundation's calendar, not the simulator's code.
@Suite struct SalesReportContentTests {
    /// 2026-11-20 12:00 PST.
    let now: Int64 = 1_795_204_800_000
    let day = SimulatedProducts.dayMs

    func options(_ clock: SimulatedClock) -> SimulatorOptions {
        SimulatorOptions(clock: clock.millisecondsClock)
    }

    func row(_ rows: [[String: String]], sku: String, country: String, price: String) -> [String: String]? {
        rows.first { $0["SKU"] == sku && $0["Country Code"] == country && $0["Customer Price"] == price }
    }

    @Test func theFileIsAGzippedTSVWithApplesHeaderAndOneRowPerLine() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            simulator.register(SimulatedLedgerScenario.monthlyUSD.subscriber(id: 7, nowMs: now))
            // Bought 410 days ago, monthly (30 days): the 14th period began 20 days ago.
            let date = PacificTestCalendar.date(now - 20 * day)
            let answer = try await simulator.salesReport(date: date)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "application/a-gzip")
            #expect(Array(answer.body.prefix(2)) == [0x1F, 0x8B], "a gzip file")
            let table = try answer.table()
            #expect(table.first == [
                "Provider", "Provider Country", "SKU", "Developer", "Title", "Version", "Product Type Identifier",
                "Units", "Developer Proceeds", "Begin Date", "End Date", "Customer Currency", "Country Code",
                "Currency of Proceeds", "Apple Identifier", "Customer Price", "Promo Code", "Parent Identifier",
                "Subscription", "Period", "Category", "CMB", "Device", "Supported Platforms", "Proceeds Reason",
                "Preserved Pricing", "Client", "Order Type",
            ])
            #expect(table.count == 2, "one billed period")
            #expect(table.allSatisfy { $0.count == 28 })
            let line = try #require(try answer.rows().first)
            #expect(line["Provider"] == "APPLE")
            #expect(line["SKU"] == SimulatedProducts.proMonthly)
            #expect(line["Product Type Identifier"] == "IAY")
            #expect(line["Units"] == "1")
            #expect(line["Customer Price"] == "9.99")
            #expect(line["Developer Proceeds"] == "6.99")
            #expect(line["Customer Currency"] == "USD")
            #expect(line["Currency of Proceeds"] == "USD")
            #expect(line["Country Code"] == "US")
            #expect(line["Subscription"] == "Renewal")
            #expect(line["Period"] == "1 Month")
            #expect(line["Begin Date"] == PacificTestCalendar.usDate(date))
            #expect(line["End Date"] == PacificTestCalendar.usDate(date))
            #expect(line["Version"] == " ", "an empty cell is one space")
            #expect(line["Promo Code"] == " ")
            // The first purchase is New.
            let first = try await simulator.salesReport(date: PacificTestCalendar.date(now - 410 * day)).rows()
            #expect(first.map { $0["Subscription"] } == ["New"])
        }
    }

    @Test func refundsArePricedNegativeOnTheirDayAndWhatNobodyPaidNeverAppears() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            simulator.register(SimulatedLedgerScenario.subscribers(firstID: 100, nowMs: now).map(\.subscriber))

            // fullRefundUSD: its 5th period refunded in full 140 days ago.
            let fullRefundDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 140 * day)).rows()
            let refund = try #require(row(fullRefundDay, sku: SimulatedProducts.proMonthly, country: "US", price: "-9.99"))
            #expect(refund["Units"] == "-1")
            #expect(refund["Developer Proceeds"] == "6.99", "proceeds stay positive")

            // proratedRefundGBP: 42.5 % of GBP 89.99 = 38.24575 → 38.25; 70 % of it 26.775 → 26.78 (half to even).
            // refundReversedGBP was refunded the same day, and reversed since: no row for it.
            let partialRefundDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 60 * day)).rows()
            let partial = try #require(row(partialRefundDay, sku: SimulatedProducts.proYearly, country: "GB", price: "-38.25"))
            #expect(partial["Units"] == "0")
            #expect(partial["Customer Currency"] == "GBP")
            #expect(partial["Developer Proceeds"] == "26.78")
            #expect(row(partialRefundDay, sku: SimulatedProducts.proMonthly, country: "GB", price: "-8.99") == nil)
            #expect(partialRefundDay.allSatisfy { !($0["Customer Price"] ?? "").hasPrefix("-") || $0["Units"] == "0" })

            // 10 days ago weeklyUSD renewed, and so did familySharedEUR's family member: only the payer shows.
            let familyDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 10 * day)).rows()
            let weekly = try #require(row(familyDay, sku: SimulatedProducts.proWeekly, country: "US", price: "2.99"))
            #expect(weekly["Period"] == "7 Days")
            #expect(familyDay.allSatisfy { $0["Country Code"] != "DE" })

            // yearlyJPY renewed 25 days ago: whole yen.
            let yenDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 25 * day)).rows()
            let yen = try #require(row(yenDay, sku: SimulatedProducts.proYearly, country: "JP", price: "15000"))
            #expect(yen["Developer Proceeds"] == "10500")
            #expect(yen["Period"] == "1 Year")
            #expect(yen["Subscription"] == "Renewal")

            // trialConvertedEUR: the free week 169 days ago bills nothing; its first paid month does.
            let trialDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 169 * day))
            if trialDay.status == 200 {
                #expect(try trialDay.rows().allSatisfy { $0["Country Code"] != "FR" })
            } else {
                #expect(trialDay.status == 404)
            }
            let paidDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 162 * day)).rows()
            #expect(row(paidDay, sku: SimulatedProducts.proMonthly, country: "FR", price: "9.99")?["Units"] == "1")

            // upgradeUSD: the upgrade 85 days ago bills premium; the upgraded period is no refund.
            let upgradeDay = try await simulator.salesReport(date: PacificTestCalendar.date(now - 85 * day)).rows()
            #expect(row(upgradeDay, sku: SimulatedProducts.premiumMonthly, country: "US", price: "14.99") != nil)
            #expect(upgradeDay.allSatisfy { !($0["Customer Price"] ?? "").hasPrefix("-") })
        }
    }

    @Test func rowsAreAggregatedWithUnitsSummed() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            // Three accounts buying the same plan on the same day in the same storefront, one elsewhere.
            for id in Int64(1)...3 {
                simulator.register(SimulatedLedgerScenario.monthlyUSD.subscriber(id: id, nowMs: now))
            }
            simulator.register(SimulatedLedgerScenario.refundReversedGBP.subscriber(id: 4, nowMs: now + 15 * day))
            let rows = try await simulator.salesReport(date: PacificTestCalendar.date(now - 20 * day)).rows()
            #expect(rows.count == 2)
            #expect(row(rows, sku: SimulatedProducts.proMonthly, country: "US", price: "9.99")?["Units"] == "3")
            #expect(row(rows, sku: SimulatedProducts.proMonthly, country: "GB", price: "8.99")?["Units"] == "1")
        }
    }

    @Test func sandboxAccountsNeverAppear() async throws {
        let clock = SimulatedClock(nowMs: now + 2 * day)
        try await withSimulator(options(clock)) { simulator in
            let sandbox = SimulatedLedgerScenario.sandboxUSD.subscriber(id: 21, nowMs: now)
            simulator.register(sandbox)
            let date = PacificTestCalendar.date(now - 50 * 60_000)
            let answer = try await simulator.salesReport(date: date)
            #expect(answer.status == 404)
            #expect(try answer.error()["detail"] as? String == "There were no sales for the date specified.")

            // The same purchases in Production are billed: five sandbox "months" on that day.
            var production = sandbox
            production.id = 22
            production.environment = .production
            simulator.register(production)
            let rows = try await simulator.salesReport(date: date).rows()
            #expect(rows.compactMap { $0["Units"] }.sorted() == ["1", "4"])
        }
    }

    @Test func aPurchaseMinutesBeforePacificMidnightIsOnItsPacificDayNotItsUTCDay() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            let scenario = SimulatedSalesScenario.latePacificEvening
            simulator.register(scenario.subscriber(id: 31, nowMs: now))
            let purchase = scenario.purchaseMs(nowMs: now)
            let pacific = PacificTestCalendar.calendar.dateComponents(
                [.hour, .minute, .day], from: Date(timeIntervalSince1970: Double(purchase) / 1000))
            #expect(pacific.hour == 23 && pacific.minute == 58)
            let pacificDate = PacificTestCalendar.date(purchase)
            #expect(pacificDate == PacificTestCalendar.date(now - 2 * day), "two Pacific days before now's")
            #expect(scenario.reportDate(nowMs: now) == pacificDate)
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            let utcParts = utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(purchase) / 1000))
            let utcDate = String(format: "%04d-%02d-%02d", utcParts.year!, utcParts.month!, utcParts.day!)
            #expect(utcDate != pacificDate)

            let rows = try await simulator.salesReport(date: pacificDate).rows()
            #expect(rows.count == 1)
            #expect(rows.first?["Subscription"] == "New")
            #expect(rows.first?["SKU"] == scenario.expectedProductID)
            #expect(try await simulator.salesReport(date: utcDate).status == 404)
        }
    }

    @Test func theUnreportedPurchaseIsBilledThreeDaysAgo() async throws {
        let clock = SimulatedClock(nowMs: now)
        try await withSimulator(options(clock)) { simulator in
            let scenario = SimulatedSalesScenario.unreportedPurchase
            let account = scenario.subscriber(id: 41, nowMs: now)
            #expect(account.environment == .production && account.ownership == .purchased)
            simulator.register(account)
            let date = PacificTestCalendar.date(now - 3 * day)
            #expect(scenario.reportDate(nowMs: now) == date)
            let line = try #require(try await simulator.salesReport(date: date).rows().first)
            #expect(line["Subscription"] == "New")
            #expect(line["Customer Price"] == "9.99")
            #expect(line["Country Code"] == "US")
        }
    }

    @Test func pacificDaysFollowDaylightSaving() async throws {
        // 2026-11-01 23:30 PST is 2026-11-02 07:30 UTC (a fixed PDT offset would say 11-02 00:30);
        // 2026-03-09 00:30 PDT is 2026-03-09 07:30 UTC (a fixed PST offset would say 03-08 23:30).
        let november = PacificTestCalendar.ms(2026, 11, 1, 23, 30)
        let march = PacificTestCalendar.ms(2026, 3, 9, 0, 30)
        #expect(november == 1_793_604_600_000)
        #expect(march == 1_773_041_400_000)
        // Day 2026-11-01 (25 hours long) is published at 11-02 08:00 PST = 16:00 UTC.
        let published = PacificTestCalendar.ms(2026, 11, 2, 8)
        #expect(published == 1_793_635_200_000)
        let clock = SimulatedClock(nowMs: published - 1000)
        try await withSimulator(options(clock)) { simulator in
            simulator.register(SimulatedSubscriber(id: 51, subscriptions: [SimulatedSubscription(
                productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.monthMs, firstPurchaseMs: november)]))
            simulator.register(SimulatedSubscriber(id: 52, subscriptions: [SimulatedSubscription(
                productID: SimulatedProducts.proYearly, periodMs: SimulatedProducts.yearMs, firstPurchaseMs: march)]))

            let early = try await simulator.salesReport(date: "2026-11-01")
            #expect(early.status == 404)
            #expect((try early.error()["detail"] as? String)?.hasPrefix("Report is not available yet.") == true)
            clock.set(nowMs: published)
            #expect(try await simulator.salesReport(date: "2026-11-01").rows().map { $0["SKU"] } == [SimulatedProducts.proMonthly])

            clock.set(nowMs: PacificTestCalendar.ms(2026, 11, 25, 12))
            #expect(try await simulator.salesReport(date: "2026-11-01").rows().count == 1)
            #expect(try await simulator.salesReport(date: "2026-11-02").status == 404)
            #expect(try await simulator.salesReport(date: "2026-03-09").rows().map { $0["SKU"] } == [SimulatedProducts.proYearly])
            #expect(try await simulator.salesReport(date: "2026-03-08").status == 404)
        }
    }

    @Test func aDayNotPublishedYetIsNotADayWithoutSales() async throws {
        // 2026-11-20 07:59 PST: the 19th's report comes at 08:00.
        let clock = SimulatedClock(nowMs: PacificTestCalendar.ms(2026, 11, 20, 7, 59))
        try await withSimulator(options(clock)) { simulator in
            let notYet = try await simulator.salesReport(date: "2026-11-19")
            #expect(notYet.status == 404)
            #expect(notYet.headers["content-type"] == "application/json")
            let notYetError = try notYet.error()
            #expect(notYetError["code"] as? String == "NOT_FOUND")
            #expect((notYetError["detail"] as? String)?.hasPrefix("Report is not available yet.") == true)
            #expect(try await simulator.salesReport(date: "2026-12-01").error()["detail"] as? String == notYetError["detail"] as? String)

            clock.set(nowMs: PacificTestCalendar.ms(2026, 11, 20, 8))
            let empty = try await simulator.salesReport(date: "2026-11-19")
            #expect(empty.status == 404)
            #expect(try empty.error()["detail"] as? String == "There were no sales for the date specified.")
            #expect(try await simulator.salesReport(date: "2026-11-20").error()["detail"] as? String == notYetError["detail"] as? String)
        }
    }
}
