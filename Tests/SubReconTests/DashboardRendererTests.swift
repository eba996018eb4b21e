import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The dashboard page without a browser: same bytes for the same data, nothing that could load from
/// elsewhere, hostile text escaped, an empty state that says what is missing, marks in every chart.
@Suite struct DashboardRendererTests {
    /// Three currencies over four months, two runs, three days of notifications.
    static func sample(hostile: String = "") -> DashboardData {
        let months = ["2026-08", "2026-09", "2026-10", "2026-11"]
        var metrics: [DashboardData.MetricsPoint] = []
        var revenue: [DashboardData.RevenuePoint] = []
        for (index, month) in months.enumerated() {
            for (currency, unit) in [("EUR", 8_990), ("JPY", 1_200_000), ("USD", 9_990)] {
                let paid = 10 + index * 3
                let mrr = Int64(unit * paid)
                let text = currency == "JPY" ? String(mrr / 1000) : String(format: "%.2f", Double(mrr) / 1000)
                metrics.append(.init(
                    period: month, currency: currency, activePaid: paid, activeTrials: 4 - index, mrrMilliunits: mrr,
                    mrrText: text, churned: index, churnRate: index == 0 ? "" : String(format: "%.4f", Double(index) / 20)))
                revenue.append(.init(
                    period: month, currency: currency, paidPeriods: paid, refunds: index % 2, grossMilliunits: mrr,
                    refundedMilliunits: Int64(index % 2 * unit), netMilliunits: mrr - Int64(index % 2 * unit),
                    grossText: text, refundedText: index % 2 == 0 ? "0" : "1", netText: text))
            }
        }
        return DashboardData(
            generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "sqlite:/var/lib/subrecon/subrecon.db\(hostile)",
            since: "2026-08-01",
            statusCounts: [
                .init(status: "active", count: 40), .init(status: "grace_period", count: 2),
                .init(status: "billing_retry", count: 1), .init(status: "expired", count: 17),
                .init(status: "refunded\(hostile)", count: 3),
            ],
            entitled: 43, currentMRR: [.init(currency: "USD", milliunits: 189_810, text: "189.81")], metrics: metrics,
            revenue: revenue,
            runs: [
                .init(
                    id: 1, kind: "nightly\(hostile)", startedAt: "2026-11-24T02:00:00Z", durationMs: 312_400, updated: 12,
                    unchanged: 300, invalid: 1, failed: 0, exitCode: 0, status: "succeeded"),
                .init(
                    id: 2, kind: "nightly", startedAt: "2026-11-25T02:00:00Z", durationMs: 15_000, updated: 0, unchanged: 0,
                    invalid: 0, failed: 313, exitCode: 75, status: "failed"),
            ],
            notificationsPerDay: [.init(day: "2026-11-23", count: 4), .init(day: "2026-11-24", count: 0), .init(day: "2026-11-25", count: 9)],
            lostOrdersPerRun: [.init(runID: 1, startedAt: "2026-11-24T02:00:00Z", count: 2), .init(runID: 2, startedAt: "2026-11-25T02:00:00Z", count: 0)],
            unpricedPeriods: 3,
            appleParity: .init(
                firstDay: "2026-11-18", lastDay: "2026-11-24", daysCompared: 7, billedMatched: 52, lostOrders: 1,
                worstDays: [.init(day: "2026-11-22", unexplainedUnits: 2, lostOrders: 1), .init(day: "2026-11-19", unexplainedUnits: 1, lostOrders: 0)]))
    }

    static let chartIDs = [
        "chart-subscriptions", "chart-churn", "chart-mrr-EUR", "chart-mrr-JPY", "chart-mrr-USD", "chart-revenue-EUR",
        "chart-revenue-JPY", "chart-revenue-USD", "chart-run-outcomes", "chart-run-durations", "chart-notifications",
        "chart-lost-orders",
    ]

    /// The HTML of one `<figure>` by id.
    static func figure(_ id: String, in page: String) -> Substring? {
        guard let start = page.range(of: "<figure class=\"chart\" id=\"\(id)\"") ?? page.range(of: "<figure class=\"chart span\" id=\"\(id)\""),
            let end = page.range(of: "</figure>", range: start.upperBound..<page.endIndex)
        else { return nil }
        return page[start.lowerBound..<end.upperBound]
    }

    static func count(_ needle: String, in text: some StringProtocol) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func theParityPanelShowsTheComparisonAndTheWorstDays() throws {
        let page = DashboardRenderer.render(Self.sample())
        #expect(page.contains("7 days compared (2026-11-18 to 2026-11-24, Pacific time), 52 billed periods matched"))
        // Issue 34: named for what it is, apart from the lost orders the nightly runs found.
        #expect(page.contains(">lost orders only Apple&#39;s sales report shows<"))
        let start = try #require(page.range(of: "<div id=\"apple-parity\">"))
        let panel = page[start.lowerBound...].prefix(2_000)
        #expect(panel.contains("<td>2026-11-22</td><td class=\"num\">2</td><td class=\"num\">1</td>"))
        #expect(panel.contains("<td>2026-11-19</td><td class=\"num\">1</td><td class=\"num\">0</td>"))
        // No comparison yet: no panel, the sentence instead.
        var none = Self.sample()
        none.appleParity = nil
        #expect(!DashboardRenderer.render(none).contains("id=\"apple-parity\""))
    }

    @Test func sameDataGivesTheSameBytes() {
        let data = Self.sample()
        #expect(DashboardRenderer.render(data) == DashboardRenderer.render(data))
        #expect(DashboardRenderer.render(data).hasPrefix("<!DOCTYPE html>\n"))
    }

    @Test func nothingCanBeLoadedFromElsewhere() {
        for data in [Self.sample(), DashboardData(generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "x")] {
            let page = DashboardRenderer.render(data).lowercased()
            for forbidden in ["http://", "https://", "@import", "url(", "<script", "src=", "<iframe", "<object", "<embed"] {
                #expect(!page.contains(forbidden), "found \(forbidden)")
            }
            // A protocol-relative URL in an attribute.
            #expect(!page.contains("=\"//"))
            #expect(page.contains("<meta http-equiv=\"content-security-policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"))
            // The only href is the empty icon, a data: URL.
            #expect(Self.count("href=", in: page) == 1)
            #expect(page.contains("<link rel=\"icon\" href=\"data:,\">"))
        }
    }

    @Test func hostileTextIsEscaped() {
        let hostile = "<script>alert('x')</script>\"&amp;<img src=x onerror=1>"
        var data = Self.sample(hostile: hostile)
        data.metrics[0].currency = "<b>\"EUR\"</b>"
        data.metrics[0].mrrText = "1<2&3"
        data.notificationsPerDay[0].day = "</table><svg onload=1>"
        let page = DashboardRenderer.render(data)
        #expect(!page.contains("<script"))
        #expect(!page.contains("<img"))
        #expect(!page.contains("<b>"))
        #expect(!page.contains("</table><svg onload"))
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;amp;&lt;img src=x onerror=1&gt;"))
        #expect(page.contains("1&lt;2&amp;3"))
        // Ids derived from a hostile currency stay plain.
        #expect(!page.contains("id=\"chart-mrr-<"))
    }

    @Test func emptyDataSaysWhatIsMissing() {
        let page = DashboardRenderer.render(DashboardData(generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "sqlite:/tmp/a.db"))
        #expect(page.contains(DashboardHTML.escape(DashboardRenderer.noMetricsSentence)))
        #expect(page.contains(DashboardHTML.escape(DashboardRenderer.noRunsSentence)))
        #expect(page.contains(DashboardHTML.escape(DashboardRenderer.noNotificationsSentence)))
        #expect(page.contains(DashboardHTML.escape(DashboardRenderer.noParitySentence)))
        #expect(!page.contains("<svg"))
        for id in ["chart-subscriptions", "chart-churn", "chart-mrr", "chart-revenue", "chart-run-outcomes", "chart-run-durations", "chart-notifications", "chart-lost-orders"] {
            #expect(Self.figure(id, in: page)?.contains("class=\"empty\"") == true, "\(id)")
        }
    }

    @Test func subscriptionsWithoutPricesSayNoPricesYet() {
        var data = DashboardData(generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "sqlite:/tmp/a.db")
        data.metrics = [.init(period: "2026-11", currency: "", activePaid: 5, activeTrials: 0, mrrMilliunits: 0, mrrText: "", churned: 0, churnRate: "")]
        data.revenue = [.init(
            period: "2026-11", currency: "", paidPeriods: 5, refunds: 0, grossMilliunits: 0, refundedMilliunits: 0,
            netMilliunits: 0, grossText: "", refundedText: "", netText: "", unpricedPeriods: 5)]
        data.unpricedPeriods = 5
        let page = DashboardRenderer.render(data)
        #expect(page.contains("No prices yet: verifyReceipt gives none; see docs/finance.md."))
        #expect(Self.figure("chart-mrr", in: page)?.contains("No prices yet") == true)
        #expect(Self.figure("chart-revenue", in: page)?.contains("No prices yet") == true)
        // The counts are still drawn: unpriced subscriptions are subscriptions.
        #expect(Self.figure("chart-subscriptions", in: page)?.contains("class=\"mark") == true)
    }

    @Test func everyChartDrawsItsSeriesAndTable() throws {
        let page = DashboardRenderer.render(Self.sample())
        for id in Self.chartIDs {
            let figure = try #require(Self.figure(id, in: page), "\(id) missing")
            #expect(Self.count("<svg", in: figure) == 1, "\(id)")
            #expect(Self.count("class=\"mark", in: figure) > 0, "\(id) draws nothing")
            #expect(Self.count("<tr>", in: figure) > 1, "\(id) has no table rows")
            #expect(figure.contains("class=\"legend\""), "\(id) has no legend")
        }
        // Every currency's MRR is its own chart; never one chart adding currencies.
        #expect(Self.figure("chart-mrr-JPY", in: page)?.contains("JPY / month") == true)
        #expect(page.contains("189.81"))
    }

    @Test func zeroAndNegativeValuesAreDrawnAgainstTheZeroLine() throws {
        var data = Self.sample()
        data.revenue = [
            .init(
                period: "2026-10", currency: "USD", paidPeriods: 0, refunds: 2, grossMilliunits: 0, refundedMilliunits: 19_980,
                netMilliunits: -19_980, grossText: "0", refundedText: "19.98", netText: "-19.98"),
            .init(
                period: "2026-11", currency: "USD", paidPeriods: 0, refunds: 0, grossMilliunits: 0, refundedMilliunits: 0,
                netMilliunits: 0, grossText: "0", refundedText: "0", netText: "0"),
        ]
        let page = DashboardRenderer.render(data)
        let figure = try #require(Self.figure("chart-revenue-USD", in: page))
        #expect(figure.contains("-19.98"))
        #expect(Self.count("<rect class=\"mark\"", in: figure) == 1)  // zero bars draw nothing
        #expect(!page.contains("NaN"))
        #expect(!page.contains("inf"))

        // A negative series (a chart's domain below zero) puts its bar under the zero line.
        let chart = DashboardChart(
            title: "t", xLabels: ["a", "b"], xUnit: "x", yUnit: "y",
            series: [.init(name: "s", color: "#000", values: [-5, 10], texts: ["-5", "10"])], style: .groupedBars)
        let svg = chart.svg()
        #expect(Self.count("<rect class=\"mark\"", in: svg) == 2)
        #expect(svg.contains(">-5<") || svg.contains(">-10<") || svg.contains(">-4<"))
        #expect(!svg.contains("-0\""))
    }

    @Test func manyPeriodsAndHugeNumbersKeepTheAxisReadable() {
        var labels: [String] = []
        var values: [Double?] = []
        for day in 0..<400 {
            labels.append("day-\(day)")
            values.append(Double(day) * 4.6e12)
        }
        let chart = DashboardChart(
            title: "t", xLabels: labels, xUnit: "day", yUnit: "USD / day",
            series: [.init(name: "s", color: "#000", values: values, texts: labels.map { _ in "" })], style: .stackedBars)
        let svg = chart.svg()
        let xLabels = labels.filter { svg.contains(">\($0)<") }
        #expect(xLabels.count <= DashboardChart.maximumXLabels + 1)
        #expect(xLabels.last == "day-399")
        #expect(svg.contains("T<"))  // 1.8e15 written compactly, not with 16 digits
        #expect(!svg.contains("000000000"))
        #expect(Self.count("<rect class=\"mark\"", in: svg) == 399)
    }

    @Test func ticksAndCoordinatesAreWrittenTheSameEverywhere() {
        #expect(DashboardHTML.coordinate(-0.04) == "0")
        #expect(DashboardHTML.coordinate(12.345) == "12.3")
        #expect(DashboardHTML.coordinate(-3.26) == "-3.3")
        #expect(DashboardHTML.tick(1500, step: 500) == "1500")
        #expect(DashboardHTML.tick(15000, step: 5000) == "15k")
        #expect(DashboardHTML.tick(2500, step: 2500) == "2.5k")
        #expect(DashboardHTML.tick(0.05, step: 0.01) == "0.05")
        #expect(DashboardHTML.tick(20, step: 5) == "20")
        #expect(DashboardHTML.tick(2_000_000, step: 1_000_000) == "2M")
        #expect(DashboardHTML.fixed(-0.0001, decimals: 2) == "0.00")
        #expect(DashboardChart.scale(domain: (0, 0)) == (0, 1, 0.5) || DashboardChart.scale(domain: (0, 0)).high > 0)
        #expect(DashboardChart.labelledIndices(count: 13) == [0, 2, 4, 6, 8, 10, 12])
        #expect(DashboardChart.labelledIndices(count: 1) == [0])
    }
    /// The y ticks of one figure (x labels are dates and periods: no decimal point in them).
    static func ticks(_ figure: some StringProtocol) -> [String] {
        figure.components(separatedBy: "<text class=\"tick\"").dropFirst().compactMap { piece in
            guard let open = piece.firstIndex(of: ">"), let close = piece.firstIndex(of: "<") else { return nil }
            return String(piece[piece.index(after: open)..<close])
        }
    }

    /// Issue 34, item 24: counts tick at whole numbers, churn reads as a percentage, runs check receipts.
    @Test func countsTickAtWholeNumbersChurnIsAPercentageAndRunsCheckReceipts() throws {
        var data = Self.sample()
        // Small counts, where a scale of its own would tick at 0.5.
        data.metrics = data.metrics.map { point in
            var point = point
            point.activePaid = point.period == "2026-11" ? 1 : 0
            point.activeTrials = 0
            return point
        }
        data.notificationsPerDay = [.init(day: "2026-11-23", count: 1), .init(day: "2026-11-24", count: 0)]
        data.lostOrdersPerRun = [.init(runID: 1, startedAt: "2026-11-24T02:00:00Z", count: 1)]
        data.runs = [.init(
            id: 1, kind: "nightly", startedAt: "2026-11-24T02:00:00Z", durationMs: 1_000, updated: 1, unchanged: 0,
            invalid: 0, accountGone: 1, failed: 0, exitCode: 0, status: "completed")]
        let page = DashboardRenderer.render(data)
        for id in ["chart-subscriptions", "chart-run-outcomes", "chart-notifications", "chart-lost-orders"] {
            let ticks = Self.ticks(try #require(Self.figure(id, in: page), "\(id)"))
            #expect(ticks.contains("1"), "\(id): \(ticks)")
            #expect(!ticks.contains { $0.contains(".") }, "\(id): \(ticks)")
        }
        #expect(DashboardChart.scale(domain: (0, 1), integer: true).step == 1)
        #expect(DashboardChart.scale(domain: (0, 0), integer: true) == (0, 1, 1))

        // Churn: the CSV's 0.0500 reads 5.00%, on an axis in percent.
        let churn = try #require(Self.figure("chart-churn", in: DashboardRenderer.render(Self.sample())))
        #expect(churn.contains("<td class=\"num\">5.00%</td>"))
        #expect(!churn.contains(">0.0500<"))
        #expect(Self.ticks(churn).contains { $0.hasSuffix("%") && $0 != "0%" })
        #expect(DashboardHTML.percent(fromRate: "0.0500") == "5.00%")
        #expect(DashboardHTML.percent(fromRate: "1.0000") == "100.00%")
        #expect(DashboardHTML.percent(fromRate: "0.3333") == "33.33%")
        #expect(DashboardHTML.percent(fromRate: "") == "")

        let outcomes = try #require(Self.figure("chart-run-outcomes", in: page))
        #expect(outcomes.contains("Receipts checked by each run"))
        #expect(!page.contains("ubscriptions checked"))
        #expect(outcomes.contains(">account_gone<"))
    }
}
