import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The dashboard in a real browser: a year of realistic data rendered to a file and opened in headless
/// Chromium, which must build every chart and table, print nothing to its console and request nothing.
///
/// Chromium is required, not optional: `scripts/test.sh` installs it. The screenshots are left in
/// `.build/test-artifacts/` (dashboard.png at 1280 px wide, dashboard-narrow.png at 390 px, and the
/// page itself, dashboard.html) for a person to look at.
@Suite(.serialized) struct DashboardBrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let artifacts = packageRoot.appendingPathComponent(".build/test-artifacts")

    /// Every chart the sample fills, by figure id.
    static let chartIDs = [
        "chart-subscriptions", "chart-churn", "chart-mrr-EUR", "chart-mrr-JPY", "chart-mrr-USD", "chart-revenue-EUR",
        "chart-revenue-JPY", "chart-revenue-USD", "chart-run-outcomes", "chart-run-durations", "chart-notifications",
        "chart-lost-orders",
    ]

    static func browser() throws -> String {
        try #require(
            HeadlessChromium.executable(),
            "Chromium is not installed: scripts/test.sh installs it (bash scripts/install-packages.sh chromium)")
    }

    /// Writes `html` to a fresh temporary file and returns its URL (the caller removes the folder).
    static func write(_ html: String, name: String = "dashboard.html") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-dashboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(html.utf8).write(to: file)
        return file
    }

    @Test func theDashboardOpensOfflineWithEveryChart() async throws {
        let chromium = try Self.browser()
        let page = try Self.write(DashboardRenderer.render(Self.sample()))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }

        let opened = try await HeadlessChromium.run(chromium, page: page, arguments: ["--dump-dom"])
        #expect(!opened.timedOut, "Chromium did not finish within \(HeadlessChromium.deadlineSeconds) s")
        #expect(opened.exitCode == 0, "Chromium exited \(opened.exitCode): \(opened.stderr.suffix(2000))")
        #expect(HeadlessChromium.consoleProblems(in: opened.stderr) == [])
        #expect(try HeadlessChromium.pageRequests(in: opened.netLog) == [])

        // The DOM Chromium built, not our string: every chart drawn, with its legend and table rows.
        let dom = opened.stdout
        #expect(dom.contains("Subscriptions dashboard"))
        // The parity panel, as Chromium built it: the worst days' table.
        let marker = try #require(dom.range(of: "id=\"apple-parity\""), "no parity panel")
        let end = try #require(dom.range(of: "</section>", range: marker.upperBound..<dom.endIndex))
        let parity = String(dom[marker.upperBound..<end.lowerBound])
        #expect(Self.count("<tr>", in: parity) == 3, "a header and two worst days")
        #expect(parity.contains("2026-11-22"))
        for id in Self.chartIDs {
            guard let figure = Self.element(id: id, in: dom) else {
                Issue.record("\(id) is not in the page")
                continue
            }
            #expect(Self.count("<svg", in: figure) == 1, "\(id): no chart")
            #expect(Self.count("class=\"mark", in: figure) > 0, "\(id): nothing plotted")
            #expect(Self.count("class=\"legend\"", in: figure) == 1, "\(id): no legend")
            #expect(Self.count("<tr>", in: figure) > 1, "\(id): no table rows")
        }
        // One MRR chart per currency, each in its own unit; thirteen months in each table.
        for currency in ["EUR", "JPY", "USD"] {
            let figure = Self.element(id: "chart-mrr-\(currency)", in: dom) ?? ""
            #expect(figure.contains("\(currency) / month"))
            #expect(Self.count("<tr>", in: figure) == 14)  // a header and 13 months
        }
        #expect(dom.contains("No prices yet") == false)
        // Hostile text arrives as text, not markup.
        #expect(dom.contains("&lt;admin&gt; &amp; \"ops\""))
        #expect(!dom.contains("<admin>"))
    }

    /// The page `report dashboard` writes from a real store after a server-api run over the
    /// simulator's money scenarios and a notification: every chart there, drawn, offline.
    @Test(arguments: StoreKind.allCases) func theDashboardOfARealStoreOpensOfflineWithEveryChart(store: StoreKind) async throws {
        let chromium = try Self.browser()
        try await TestWorld.make(store: store).closing { world in
            try await LedgerScenarioRunTests.importLedgerScenarios(world)
            #expect(try await world.runServerAPI().exitCode == 0)
            try await ReportGoldenTests.receiveNotifications(world)
            let box = DataBox()
            try await ReportExporter(store: world.store).exportDashboard(options: ReportOptions(nowMs: world.clock.nowMs)) {
                box.append($0)
            }
            let page = try Self.write(box.text)
            defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }

            let opened = try await HeadlessChromium.run(chromium, page: page, arguments: ["--dump-dom"])
            #expect(!opened.timedOut && opened.exitCode == 0, "\(opened.stderr.suffix(2000))")
            #expect(HeadlessChromium.consoleProblems(in: opened.stderr) == [])
            #expect(try HeadlessChromium.pageRequests(in: opened.netLog) == [])
            let dom = opened.stdout
            // (Not the run durations: on the test's fixed clock a run takes 0 ms, a bar of no height.)
            let ids = ["chart-subscriptions", "chart-churn", "chart-run-outcomes", "chart-notifications"]
                + ["EUR", "GBP", "JPY", "USD"].flatMap { ["chart-mrr-\($0)", "chart-revenue-\($0)"] }
            for id in ids {
                let figure = try #require(Self.element(id: id, in: dom), "\(id) is not in the page")
                #expect(Self.count("<svg", in: figure) == 1, "\(id): no chart")
                #expect(Self.count("class=\"mark", in: figure) > 0, "\(id): nothing plotted")
            }
            // The page's figures are the CSV's: this month's USD MRR as `report metrics` writes it.
            let metrics = try await world.report(.metrics)
            let usd = try #require(metrics.last { $0["currency"] == "USD" }?["mrr"])
            #expect(dom.contains(">\(usd)<"), "USD MRR \(usd)")
        }
    }

    @Test func screenshotsAreWrittenForAPersonToLookAt() async throws {
        let chromium = try Self.browser()
        let html = DashboardRenderer.render(Self.sample())
        let page = try Self.write(html)
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        // The page itself too, to open in a desktop browser beside the screenshots.
        try Data(html.utf8).write(to: Self.artifacts.appendingPathComponent("dashboard.html"))

        for (name, size) in [("dashboard.png", "1280,3000"), ("dashboard-narrow.png", "390,3000")] {
            let png = Self.artifacts.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: png)
            let shot = try await HeadlessChromium.run(
                chromium, page: page, arguments: ["--screenshot=\(png.path)", "--window-size=\(size)"])
            #expect(!shot.timedOut && shot.exitCode == 0, "Chromium: \(shot.exitCode) \(shot.stderr.suffix(2000))")
            #expect(HeadlessChromium.consoleProblems(in: shot.stderr) == [])
            #expect(try HeadlessChromium.pageRequests(in: shot.netLog) == [])
            let bytes = try Data(contentsOf: png)
            #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is not a PNG")
            // A blank page compresses to a few kilobytes; charts, tables and text do not.
            #expect(bytes.count > 40_000, "\(name) is only \(bytes.count) bytes")
        }
    }

    /// Issue 34, item 24: at 1400 px (a laptop's browser) no table scrolls sideways, the runs
    /// table with its column per outcome included, and neither does the page. The page runs no
    /// script (its policy forbids one), so a copy without the policy carries one that measures the
    /// layout Chromium made, every table unfolded, and writes what overflows into the page.
    @Test func noTableScrollsSidewaysAt1400Pixels() async throws {
        let chromium = try Self.browser()
        let measuring = """
            <pre id="measured"><script>
            const overflowing = [];
            for (const wrap of document.querySelectorAll(".table-wrap")) {
              const owner = wrap.closest("[id]");
              if (wrap.scrollWidth > wrap.clientWidth) overflowing.push((owner ? owner.id : "?") + " by " + (wrap.scrollWidth - wrap.clientWidth));
            }
            const root = document.documentElement;
            if (root.scrollWidth > root.clientWidth) overflowing.push("the page by " + (root.scrollWidth - root.clientWidth));
            document.getElementById("measured").textContent = "width " + window.innerWidth + "; tables "
              + document.querySelectorAll(".table-wrap").length + "; overflowing: " + overflowing.join(", ");
            </script></pre>
            """
        var html = DashboardRenderer.render(Self.sample())
        let policy = try #require(html.range(of: "<meta http-equiv=\"Content-Security-Policy\"[^>]*>", options: .regularExpression))
        html.removeSubrange(policy)
        html = html.replacingOccurrences(of: "<details>", with: "<details open>")
            .replacingOccurrences(of: "</main>", with: measuring + "</main>")
        let page = try Self.write(html)
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let opened = try await HeadlessChromium.run(chromium, page: page, arguments: ["--dump-dom", "--window-size=1400,3000"])
        #expect(!opened.timedOut && opened.exitCode == 0, "\(opened.stderr.suffix(2000))")
        let start = try #require(opened.stdout.range(of: "<pre id=\"measured\">"))
        let end = try #require(opened.stdout.range(of: "</pre>", range: start.upperBound..<opened.stdout.endIndex))
        let measured = String(opened.stdout[start.upperBound..<end.lowerBound])
        #expect(measured.hasPrefix("width 1400; "), "\(measured)")
        #expect(!measured.contains("tables 0;"), "\(measured)")
        #expect(measured.hasSuffix("overflowing: "), "\(measured)")

        // And a look, for a person: the runs table unfolded at 1400 px.
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let unfolded = try Self.write(DashboardRenderer.render(Self.sample()).replacingOccurrences(of: "<details>", with: "<details open>"))
        defer { try? FileManager.default.removeItem(at: unfolded.deletingLastPathComponent()) }
        let png = Self.artifacts.appendingPathComponent("dashboard-1400.png")
        let shot = try await HeadlessChromium.run(
            chromium, page: unfolded, arguments: ["--screenshot=\(png.path)", "--window-size=1400,5200"])
        #expect(shot.exitCode == 0 && HeadlessChromium.consoleProblems(in: shot.stderr) == [])
    }

    /// 400 days by day: thin x labels, lines without dots, one bar a day; the layout must hold.
    @Test func fourHundredDaysStillOpenCleanly() async throws {
        let chromium = try Self.browser()
        let page = try Self.write(DashboardRenderer.render(Self.sample(days: 400)))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let png = Self.artifacts.appendingPathComponent("dashboard-400-days.png")
        let shot = try await HeadlessChromium.run(
            chromium, page: page, arguments: ["--screenshot=\(png.path)", "--window-size=1280,3000"])
        #expect(shot.exitCode == 0 && HeadlessChromium.consoleProblems(in: shot.stderr) == [])
        #expect(try HeadlessChromium.pageRequests(in: shot.netLog) == [])
        let opened = try await HeadlessChromium.run(chromium, page: page, arguments: ["--dump-dom"])
        let notifications = Self.element(id: "chart-notifications", in: opened.stdout) ?? ""
        #expect(Self.count("<rect class=\"mark\"", in: notifications) == 400)
        #expect(Self.count("<tr>", in: notifications) == 401)
        // Labels thinned: a dozen at most under 400 bars.
        #expect(Self.count("<text class=\"tick\"", in: notifications) < 12 + 10)
    }

    @Test func anEmptyDatabaseStillGivesAPageThatSaysWhatIsMissing() async throws {
        let chromium = try Self.browser()
        let empty = DashboardData(generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "sqlite:/var/lib/subrecon/empty.db")
        let page = try Self.write(DashboardRenderer.render(empty))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let opened = try await HeadlessChromium.run(chromium, page: page, arguments: ["--dump-dom"])
        #expect(opened.exitCode == 0)
        #expect(HeadlessChromium.consoleProblems(in: opened.stderr) == [])
        #expect(try HeadlessChromium.pageRequests(in: opened.netLog) == [])
        #expect(opened.stdout.contains("No runs yet"))
        #expect(opened.stdout.contains("No notifications yet"))
        #expect(opened.stdout.contains("No metrics yet"))
    }

    /// The two checks above would pass vacuously if Chromium's logs changed shape: a page that does
    /// load from elsewhere must be caught by each.
    @Test func theChecksCatchAPageThatLoadsFromElsewhere() async throws {
        let chromium = try Self.browser()
        let image = "<img src=\"http://images.example.invalid/pixel.png\" alt=\"\">"
        let open = try Self.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\(image)</body></html>")
        let guarded = try Self.write(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"></head><body>\(image)</body></html>")
        defer {
            try? FileManager.default.removeItem(at: open.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: guarded.deletingLastPathComponent())
        }
        let unguarded = try await HeadlessChromium.run(chromium, page: open, arguments: ["--dump-dom"])
        #expect(try HeadlessChromium.pageRequests(in: unguarded.netLog) == ["http://images.example.invalid/pixel.png"])
        let refused = try await HeadlessChromium.run(chromium, page: guarded, arguments: ["--dump-dom"])
        #expect(try HeadlessChromium.pageRequests(in: refused.netLog) == [])
        #expect(HeadlessChromium.consoleProblems(in: refused.stderr).count == 1)
    }

    // MARK: - Helpers

    /// The serialized element with this id (a `<figure>`), up to its closing tag.
    static func element(id: String, in dom: String) -> String? {
        guard let marker = dom.range(of: "id=\"\(id)\""),
            let start = dom.range(of: "<figure", options: .backwards, range: dom.startIndex..<marker.lowerBound),
            let end = dom.range(of: "</figure>", range: marker.upperBound..<dom.endIndex)
        else { return nil }
        return String(dom[start.lowerBound..<end.upperBound])
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// A year and a month of a small app in three currencies: growing subscriptions, a refund now and
    /// then, two weeks of nightly runs (one failed, one with lost orders), two months of notifications.
    /// With `days`, metrics and notifications are per day for that many days instead (`--by day`).
    static func sample(days: Int? = nil) -> DashboardData {
        let months = (0..<13).map { index -> String in
            let month = 11 + index  // 2025-11 ... 2026-11
            return "\(2025 + (month - 1) / 12)-\(two((month - 1) % 12 + 1))"
        }
        // By day from 2025-11-01 (400 days), or the last two months (2026-10-01 on) for notifications.
        let firstDay: TimeInterval = days == nil ? 1_790_812_800 : 1_761_955_200
        let dayNames = (0..<(days ?? 61)).map { day(firstDay + TimeInterval($0) * 86_400) }
        let currencies: [(code: String, price: Int64, decimals: Int, share: Int)] = [
            ("EUR", 8_990, 2, 30), ("JPY", 1_200_000, 0, 12), ("USD", 9_990, 2, 58),
        ]
        var metrics: [DashboardData.MetricsPoint] = []
        var revenue: [DashboardData.RevenuePoint] = []
        var previousPaid: [String: Int] = [:]
        for (index, month) in (days == nil ? months : dayNames).enumerated() {
            for currency in currencies {
                let paid = (120 + index * 37 * (days == nil ? 30 : 1) / 30 + (index % 3) * 11) * currency.share / 100
                let trials = (18 + (index * 7) % 13) * currency.share / 100
                let churned = index == 0 ? 0 : (paid / 14 + index % 4)
                let mrr = Int64(paid) * currency.price
                let before = previousPaid[currency.code] ?? paid
                let rate = before == 0 ? "" : fixed(Int64(churned) * 10_000 / Int64(before), decimals: 4, milli: false)
                previousPaid[currency.code] = paid
                metrics.append(.init(
                    period: month, currency: currency.code, activePaid: paid, activeTrials: trials, mrrMilliunits: mrr,
                    mrrText: money(mrr, decimals: currency.decimals), churned: churned, churnRate: index == 0 ? "" : rate))
                guard index < months.count else { continue }  // revenue stays by month
                let refunds = (index * 5 + currency.share) % 4
                let gross = mrr + Int64(index % 5) * currency.price
                let refunded = Int64(refunds) * currency.price
                revenue.append(.init(
                    period: months[index], currency: currency.code, paidPeriods: paid + index % 5, refunds: refunds,
                    grossMilliunits: gross, refundedMilliunits: refunded, netMilliunits: gross - refunded,
                    grossText: money(gross, decimals: currency.decimals), refundedText: money(refunded, decimals: currency.decimals),
                    netText: money(gross - refunded, decimals: currency.decimals)))
            }
        }
        let current = metrics.suffix(3).map { DashboardData.Money(currency: $0.currency, milliunits: $0.mrrMilliunits, text: $0.mrrText) }

        var runs: [DashboardData.Run] = []
        var lost: [DashboardData.RunCount] = []
        for night in 0..<14 {
            let started = "2026-11-\(two(12 + night))T02:00:0\(night % 10)Z"
            let failedRun = night == 9
            runs.append(.init(
                id: Int64(101 + night), kind: night % 5 == 4 ? "user" : "nightly", startedAt: started,
                durationMs: failedRun ? 41_250 : Int64(180_000 + (night * 7_919) % 90_000 + (night % 7 == 6 ? 400_000 : 0)),
                updated: failedRun ? 3 : 20 + (night * 13) % 25, unchanged: failedRun ? 0 : (night % 7 == 6 ? 1_450 : 380 + night * 3),
                invalid: night % 4 == 1 ? 2 : 0, accountGone: night % 6 == 2 ? 1 : 0, failed: failedRun ? 412 : night % 5 == 3 ? 1 : 0,
                exitCode: failedRun ? 75 : 0, status: failedRun ? "failed" : "succeeded"))
            lost.append(.init(runID: Int64(101 + night), startedAt: started, count: [0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0][night]))
        }
        let notifications = dayNames.enumerated().map { index, date in
            DashboardData.DayCount(day: date, count: 6 + (index * 17) % 23 + (index % 7 == 0 ? 30 : 0))
        }
        return DashboardData(
            generatedAt: "2026-11-26T06:00:00Z", databaseLabel: "postgres://<admin> & \"ops\"@db.internal:5432/subrecon",
            since: nil,
            statusCounts: [
                .init(status: "active", count: 1_124), .init(status: "grace_period", count: 23),
                .init(status: "billing_retry", count: 41), .init(status: "expired", count: 3_870),
                .init(status: "refunded", count: 96),
            ],
            entitled: 1_147, currentMRR: current, metrics: metrics, revenue: revenue, runs: runs, notificationsPerDay: notifications,
            lostOrdersPerRun: lost, unpricedPeriods: 14,
            appleParity: .init(
                firstDay: "2026-11-18", lastDay: "2026-11-24", daysCompared: 7, billedMatched: 236, lostOrders: 1,
                worstDays: [.init(day: "2026-11-22", unexplainedUnits: 2, lostOrders: 1), .init(day: "2026-11-19", unexplainedUnits: 1, lostOrders: 0)]))
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// `2026-11-26` for seconds since 1970, in UTC.
    private static func day(_ seconds: TimeInterval) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: seconds))
        return "\(parts.year!)-\(two(parts.month!))-\(two(parts.day!))"
    }

    /// Milliunits as the CSV writes them, for a currency with `decimals` minor digits (halves to even
    /// do not matter here: the sample's amounts are exact).
    private static func money(_ milliunits: Int64, decimals: Int) -> String {
        fixed(milliunits, decimals: decimals, milli: true)
    }

    private static func fixed(_ value: Int64, decimals: Int, milli: Bool) -> String {
        var scaled = value
        if milli { for _ in decimals..<3 { scaled /= 10 } }
        let sign = scaled < 0 ? "-" : ""
        let digits = String(scaled.magnitude)
        guard decimals > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        return sign + padded.dropLast(decimals) + "." + padded.suffix(decimals)
    }
}
