import SubReconModel

/// Renders `report dashboard`: one self-contained HTML5 page from a ``DashboardData``.
///
/// The page loads nothing (a Content-Security-Policy forbids every load but inline style and `data:`
/// images, so a mistake shows up as a refusal, never a request), has no script, draws its charts as
/// inline SVG and puts every figure in a table too. The same data gives the same bytes.
public enum DashboardRenderer {
    /// The sentence shown where money would be when no period has a known price.
    static let noPricesSentence = "No prices yet: verifyReceipt gives none; see docs/finance.md."
    static let noMetricsSentence =
        "No metrics yet: no subscription was paid, in a trial or churned in this window."
    static let noRunsSentence = "No runs yet: subrecon run has not finished against this database."
    static let noNotificationsSentence = "No notifications yet: none was received or imported in this window."
    static let noRevenueSentence = "No revenue yet: no paid period or refund in this window."
    static let noLostOrdersSentence =
        "No lost orders: no run found a period Apple billed after the receipt was imported that nothing else had recorded."
    static let noChurnSentence = "No churn yet: no period had paid subscriptions at its previous end."
    static let noParitySentence =
        "Not compared with Apple's sales reports yet: App Store Connect's reports remain the record (docs/finance.md)."

    static let paritySentence =
        "subrecon report apple-parity lists each difference; lost orders are the rows missing_in_ledger (docs/finance.md)."

    /// The page, UTF-8 HTML5.
    public static func render(_ data: DashboardData) -> String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<meta name=\"referrer\" content=\"no-referrer\">\n"
        // An empty icon, so a browser does not go looking for /favicon.ico.
        page += "<link rel=\"icon\" href=\"data:,\">\n"
        page += "<title>subrecon dashboard · \(DashboardHTML.escape(data.generatedAt))</title>\n"
        page += "<style>\n\(DashboardStyle.css)\n</style>\n</head>\n<body>\n<main>\n"
        page += header(data)
        page += nowSection(data)
        page += subscriptionsSection(data)
        page += moneySection(data)
        page += operationsSection(data)
        page += footer()
        page += "</main>\n</body>\n</html>\n"
        return page
    }

    // MARK: - Sections

    private static func header(_ data: DashboardData) -> String {
        var out = "<header class=\"page\"><h1>Subscriptions dashboard</h1><p class=\"meta\">"
        out += "<span>Made <time>\(DashboardHTML.escape(data.generatedAt))</time></span>"
        out += "<span>Database <code>\(DashboardHTML.escape(data.databaseLabel))</code></span>"
        if !data.apps.isEmpty {
            out += "<span>Apps <code>\(DashboardHTML.escape(data.apps.joined(separator: ", ")))</code> "
                + "(runs and Apple's sales reports cover every app)</span>"
        }
        if let since = data.since {
            out += "<span>Since \(DashboardHTML.escape(since))</span>"
        } else {
            out += "<span>All periods with data</span>"
        }
        return out + "</p></header>\n"
    }

    private static func nowSection(_ data: DashboardData) -> String {
        var out = "<section id=\"now\"><h2>Now</h2><div class=\"cards\" id=\"status-counts\">"
        out += card(label: "entitled", value: String(data.entitled), detail: "subscriptions giving access", lead: true)
        for item in data.statusCounts {
            out += card(label: item.status, value: String(item.count))
        }
        out += "</div>"
        let total = data.statusCounts.reduce(0) { $0 + max(0, $1.count) }
        if total > 0 {
            // Proportions at a glance; the cards above hold the figures.
            out += "<div class=\"statusbar\" aria-hidden=\"true\">"
            for (index, item) in data.statusCounts.enumerated() where item.count > 0 {
                out += "<span style=\"flex-grow:\(item.count);background:\(statusColor(item.status, index))\"></span>"
            }
            out += "</div><ul class=\"legend\">"
            for (index, item) in data.statusCounts.enumerated() where item.count > 0 {
                out += "<li><span class=\"swatch\" style=\"background:\(statusColor(item.status, index))\"></span>\(DashboardHTML.escape(item.status))</li>"
            }
            out += "</ul>"
        }

        out += "<p class=\"subhead\">Monthly recurring revenue now</p><div class=\"cards\" id=\"current-mrr\">"
        let priced = data.currentMRR.filter { !$0.currency.isEmpty && !$0.text.isEmpty }
        if priced.isEmpty {
            out += "</div><p class=\"empty\">\(DashboardHTML.escape(hasAnyPrice(data) ? "No paid subscription now." : noPricesSentence))</p>"
        } else {
            for money in priced {
                out += card(label: "MRR \(money.currency)", value: money.text, unit: money.currency)
            }
            out += "</div>"
        }

        out += "<p class=\"subhead\">Checks</p><div class=\"cards\" id=\"last-run\">"
        // The nightly job's latest run: a support lookup (`subrecon user`, kind `user`) is no "last run".
        if let run = data.runs.last(where: { $0.kind == RunKind.nightly.rawValue }) {
            var detail = "started \(run.startedAt) · \(durationText(run.durationMs)) · "
            detail += "\(run.updated) updated, \(run.unchanged) unchanged, \(run.invalid) invalid, "
                + "\(run.accountGone) account_gone, \(run.failed) failed"
            out += card(
                label: "last nightly run #\(run.id)", value: run.exitCode.map { "exit \($0)" } ?? run.status,
                detail: detail, wide: true)
        } else {
            out += card(label: "last nightly run", value: "none", detail: noRunsSentence, wide: true)
        }
        if let parity = data.appleParity {
            let detail = "\(parity.daysCompared) days compared (\(parity.firstDay) to \(parity.lastDay), Pacific time), \(parity.billedMatched) billed periods matched"
            out += card(label: "lost orders only Apple's sales report shows", value: String(parity.lostOrders), detail: detail, wide: true)
        } else {
            out += card(label: "Apple's sales reports", value: "—", detail: noParitySentence, wide: true)
        }
        out += "</div>"
        if let parity = data.appleParity {
            out += "<div id=\"apple-parity\"><p class=\"subhead\">The ledger against Apple's sales reports: the worst days</p>"
            if parity.worstDays.isEmpty {
                out += "<p class=\"empty\">Every compared day matches Apple's report (or differs only across midnight).</p>"
            } else {
                out += DashboardTable(
                    columns: [.text("day (Pacific)"), .number("units unexplained"), .number("lost orders")],
                    rows: parity.worstDays.map { [$0.day, String($0.unexplainedUnits), String($0.lostOrders)] }
                ).html()
                out += "<p class=\"note\">\(DashboardHTML.escape(paritySentence))</p>"
            }
            out += "</div>"
        }
        return out + "</section>\n"
    }

    private static func subscriptionsSection(_ data: DashboardData) -> String {
        var out = "<section id=\"subscriptions\"><h2>Subscriptions over time</h2><div class=\"charts\">"
        let periods = orderedUnique(data.metrics.map(\.period))
        let unit = periodUnit(periods)
        if periods.isEmpty {
            out += emptyFigure(id: "chart-subscriptions", title: "Paid subscriptions and trials", sentence: noMetricsSentence)
            out += emptyFigure(id: "chart-churn", title: "Churn", sentence: noMetricsSentence)
            return out + "</div></section>\n"
        }
        var paid: [Int] = Array(repeating: 0, count: periods.count)
        var trials: [Int] = Array(repeating: 0, count: periods.count)
        let index = Dictionary(uniqueKeysWithValues: periods.enumerated().map { ($1, $0) })
        for point in data.metrics {
            guard let at = index[point.period] else { continue }
            paid[at] += point.activePaid
            trials[at] += point.activeTrials
        }
        let counts = DashboardChart(
            title: "Paid subscriptions and trials", xLabels: periods, xUnit: unit, yUnit: "subscriptions",
            series: [
                .init(name: "paid", color: DashboardStyle.paid, values: paid.map(Double.init), texts: paid.map(String.init)),
                .init(name: "in a trial", color: DashboardStyle.trials, values: trials.map(Double.init), texts: trials.map(String.init)),
            ],
            style: .lines, integerTicks: true)
        let countsTable = DashboardTable(
            columns: [.text(unit), .number("active_paid"), .number("active_trials")],
            rows: periods.indices.map { [periods[$0], String(paid[$0]), String(trials[$0])] })
        out += figure(
            id: "chart-subscriptions", title: "Paid subscriptions and trials",
            note: "At the end of each \(unit) (now, for the current one); all currencies together: these are counts, not money.",
            chart: counts, table: countsTable)

        // Churn: one series per currency (rates, so currencies can share an axis, never be summed).
        let currencies = orderedUnique(data.metrics.map(\.currency).sorted())
        let withRates = currencies.filter { currency in
            data.metrics.contains { $0.currency == currency && Double($0.churnRate) != nil }
        }
        if withRates.isEmpty {
            out += emptyFigure(id: "chart-churn", title: "Churn", sentence: noChurnSentence)
        } else {
            var series: [DashboardChart.Series] = []
            // One row per period and currency: four columns fit beside a half-page chart, where a
            // pair of columns per currency would scroll sideways.
            var rows = periods.map { _ in [[String]]() }
            for currency in withRates {
                var values: [Double?] = Array(repeating: nil, count: periods.count)
                var texts: [String] = Array(repeating: "", count: periods.count)
                var churned: [String] = Array(repeating: "", count: periods.count)
                for point in data.metrics where point.currency == currency {
                    guard let at = index[point.period] else { continue }
                    // A percentage: the CSV's rate with its decimal point moved, exactly.
                    texts[at] = DashboardHTML.percent(fromRate: point.churnRate)
                    values[at] = Double(point.churnRate).map { $0 * 100 }
                    churned[at] = String(point.churned)
                }
                series.append(.init(
                    name: currencyName(currency), color: currencyColor(currency, data), values: values, texts: texts))
                for at in periods.indices where !churned[at].isEmpty {
                    rows[at].append([periods[at], currencyName(currency), churned[at], texts[at]])
                }
            }
            let chart = DashboardChart(
                title: "Churn", xLabels: periods, xUnit: unit, yUnit: "churn, % of those paid at the previous end",
                series: series, style: .lines, tickSuffix: "%")
            let table = DashboardTable(
                columns: [.text(unit), .text("currency"), .number("churned"), .number("churn")],
                rows: rows.flatMap { $0 })
            out += figure(
                id: "chart-churn", title: "Churn",
                note: "Paid subscriptions at the previous \(unit)'s end that are neither paid nor in a trial at this one's, per currency.",
                chart: chart, table: table)
        }
        return out + "</div></section>\n"
    }

    private static func moneySection(_ data: DashboardData) -> String {
        var out = "<section id=\"money\"><h2>Money</h2>"
        out += "<p class=\"note\">Customer prices as Apple signed them, before Apple's commission and taxes, in each currency: currencies are never converted or added together. App Store Connect's reports are the record for revenue recognition.</p>"
        let metricCurrencies = orderedUnique(
            data.metrics.filter { !$0.currency.isEmpty && !$0.mrrText.isEmpty }.map(\.currency).sorted())
        let revenueCurrencies = orderedUnique(
            data.revenue.filter { !$0.currency.isEmpty && hasPrice($0) }.map(\.currency).sorted())
        let currencies = orderedUnique((metricCurrencies + revenueCurrencies).sorted())
        let noPrices = !hasAnyPrice(data)
        out += "<div class=\"charts\">"
        if currencies.isEmpty {
            let sentence = noPrices && (data.unpricedPeriods > 0 || !data.metrics.isEmpty || !data.revenue.isEmpty)
                ? noPricesSentence : (data.metrics.isEmpty ? noMetricsSentence : noPricesSentence)
            out += emptyFigure(id: "chart-mrr", title: "Monthly recurring revenue", sentence: sentence)
            out += emptyFigure(
                id: "chart-revenue", title: "Gross and refunded",
                sentence: noPrices && data.unpricedPeriods > 0 ? noPricesSentence : (data.revenue.isEmpty ? noRevenueSentence : noPricesSentence))
        }
        for currency in currencies {
            out += mrrFigure(currency: currency, data: data)
            out += revenueFigure(currency: currency, data: data)
        }
        out += "</div>"
        let unpriced = max(data.unpricedPeriods, data.revenue.reduce(0) { $0 + $1.unpricedPeriods })
        if unpriced > 0 && !currencies.isEmpty {
            out += "<p class=\"note\" id=\"unpriced\">\(unpriced) billed \(unpriced == 1 ? "period has" : "periods have") no known price yet (seen only through verifyReceipt) and \(unpriced == 1 ? "is" : "are") in no amount above; see docs/finance.md.</p>"
        }
        return out + "</section>\n"
    }

    private static func mrrFigure(currency: String, data: DashboardData) -> String {
        let points = data.metrics.filter { $0.currency == currency }
        let id = "chart-mrr-\(DashboardHTML.identifier(currency))"
        let title = "MRR in \(currency)"
        guard points.contains(where: { !$0.mrrText.isEmpty }) else {
            return emptyFigure(id: id, title: title, sentence: "No MRR in \(currency): no paid subscription in this window.")
        }
        let periods = points.map(\.period)
        let unit = periodUnit(periods)
        let chart = DashboardChart(
            title: title, xLabels: periods, xUnit: unit, yUnit: "\(currency) / month",
            series: [.init(
                name: "MRR \(currency)", color: currencyColor(currency, data),
                values: points.map { $0.mrrText.isEmpty ? nil : Double($0.mrrMilliunits) / 1000 }, texts: points.map(\.mrrText))],
            style: .lines)
        let table = DashboardTable(
            columns: [.text(unit), .number("active_paid"), .number("mrr")],
            rows: points.map { [$0.period, String($0.activePaid), $0.mrrText] })
        return figure(
            id: id, title: title,
            note: "Each paid subscription's price brought to one month, at the end of each \(unit) (now, for the current one).",
            chart: chart, table: table)
    }

    private static func revenueFigure(currency: String, data: DashboardData) -> String {
        let points = data.revenue.filter { $0.currency == currency }
        let id = "chart-revenue-\(DashboardHTML.identifier(currency))"
        let title = "Gross and refunded in \(currency)"
        guard points.contains(where: hasPrice) else {
            return emptyFigure(id: id, title: title, sentence: "No revenue in \(currency): no paid period or refund in this window.")
        }
        let periods = points.map(\.period)
        let unit = periodUnit(periods)
        func value(_ text: String, _ milliunits: Int64) -> Double? { text.isEmpty ? nil : Double(milliunits) / 1000 }
        let chart = DashboardChart(
            title: title, xLabels: periods, xUnit: unit, yUnit: "\(currency) / \(unit)",
            series: [
                .init(
                    name: "gross", color: DashboardStyle.gross, values: points.map { value($0.grossText, $0.grossMilliunits) },
                    texts: points.map(\.grossText)),
                .init(
                    name: "refunded", color: DashboardStyle.refunded,
                    values: points.map { value($0.refundedText, $0.refundedMilliunits) }, texts: points.map(\.refundedText)),
            ],
            style: .groupedBars)
        let table = DashboardTable(
            columns: [
                .text(unit), .number("paid_periods"), .number("gross"), .number("refunds"), .number("refunded"), .number("net"),
            ],
            rows: points.map {
                [$0.period, String($0.paidPeriods), $0.grossText, String($0.refunds), $0.refundedText, $0.netText]
            })
        return figure(
            id: id, title: title,
            note: "Paid periods by purchase date; refunds by refund date, so a closed \(unit) never changes.",
            chart: chart, table: table)
    }

    private static func operationsSection(_ data: DashboardData) -> String {
        var out = "<section id=\"operations\"><h2>Nightly runs and notifications</h2><div class=\"charts\">"
        let runs = data.runs
        if runs.isEmpty {
            out += emptyFigure(id: "chart-run-outcomes", title: "What each run found", sentence: noRunsSentence)
            out += emptyFigure(id: "chart-run-durations", title: "How long each run took", sentence: noRunsSentence)
        } else {
            let labels = runs.map { runLabel($0.startedAt) }
            func series(_ name: String, _ color: String, _ pick: (DashboardData.Run) -> Int) -> DashboardChart.Series {
                .init(name: name, color: color, values: runs.map { Double(pick($0)) }, texts: runs.map { String(pick($0)) })
            }
            var outcomes = DashboardChart(
                title: "What each run found", xLabels: labels, xUnit: "run (start date, UTC)", yUnit: "receipts",
                series: [
                    series("updated", DashboardStyle.updated, \.updated),
                    series("unchanged", DashboardStyle.unchanged, \.unchanged),
                    series("invalid", DashboardStyle.invalid, \.invalid),
                    series("account_gone", DashboardStyle.accountGone, \.accountGone),
                    series("failed", DashboardStyle.failed, \.failed),
                ],
                style: .stackedBars, integerTicks: true)
            // Across the page: its table has a column per outcome and must not scroll sideways.
            outcomes.spansPage = true
            out += figure(
                id: "chart-run-outcomes", title: "What each run found",
                note: "Receipts checked by each run, by outcome.", chart: outcomes,
                table: DashboardTable(
                    columns: [
                        .text("run"), .text("kind"), .text("started"), .number("updated"), .number("unchanged"),
                        .number("invalid"), .number("account_gone"), .number("failed"), .text("status"),
                    ],
                    rows: runs.map {
                        [
                            "#\($0.id)", $0.kind, $0.startedAt, String($0.updated), String($0.unchanged), String($0.invalid),
                            String($0.accountGone), String($0.failed), $0.status,
                        ]
                    }))
            // Coloured by exit code, so a failing night stands out among the durations.
            let seconds = runs.map { $0.durationMs.map { Double($0) / 1000 } }
            let succeeded = runs.indices.map { runs[$0].exitCode == 0 ? seconds[$0] : nil }
            let other = runs.indices.map { runs[$0].exitCode == 0 ? nil : seconds[$0] }
            let texts = runs.map { durationSeconds($0.durationMs) }
            let durations = DashboardChart(
                title: "How long each run took", xLabels: labels, xUnit: "run (start date, UTC)", yUnit: "seconds",
                series: [
                    .init(name: "exit 0", color: DashboardStyle.succeeded, values: succeeded, texts: texts),
                    .init(name: "other exit code (or still running)", color: DashboardStyle.failed, values: other, texts: texts),
                ],
                style: .stackedBars)
            out += figure(
                id: "chart-run-durations", title: "How long each run took",
                note: "Wall-clock seconds from start to finish; the exit code is in the table.", chart: durations,
                table: DashboardTable(
                    columns: [.text("run"), .text("started"), .number("duration (s)"), .number("exit code")],
                    rows: runs.map { ["#\($0.id)", $0.startedAt, durationSeconds($0.durationMs), $0.exitCode.map(String.init) ?? ""] }))
        }

        // Lost orders beside the durations (both half the page), then the notifications (often wide).
        let lost = data.lostOrdersPerRun
        if lost.isEmpty || !lost.contains(where: { $0.count != 0 }) {
            let sentence = lost.isEmpty && runs.isEmpty ? noRunsSentence : noLostOrdersSentence
            var figureHTML = "<figure class=\"chart\" id=\"chart-lost-orders\"><figcaption><h3>Lost orders found per night</h3></figcaption>"
            figureHTML += "<p class=\"empty\">\(DashboardHTML.escape(sentence))</p>"
            if !lost.isEmpty {
                figureHTML += lostTable(lost).html()
            }
            out += figureHTML + "</figure>"
        } else {
            let chart = countBars(
                title: "Lost orders found per night", xLabels: lost.map { runLabel($0.startedAt) }, xUnit: "run (start date, UTC)",
                yUnit: "periods found first", name: "lost orders", color: DashboardStyle.lostOrders, counts: lost.map(\.count))
            out += figure(
                id: "chart-lost-orders", title: "Lost orders found per night",
                note: "Periods Apple billed after the app server handed the receipt over, which a run found before any "
                    + "notification had recorded them (subrecon report unrecorded; the history a receipt itself carried is no lost order).",
                chart: chart, table: lostTable(lost))
        }

        if data.notificationsPerDay.isEmpty {
            out += emptyFigure(id: "chart-notifications", title: "Notifications per day", sentence: noNotificationsSentence)
        } else {
            let days = data.notificationsPerDay
            let chart = countBars(
                title: "Notifications per day", xLabels: days.map(\.day), xUnit: "day (UTC)", yUnit: "notifications / day",
                name: "notifications", color: DashboardStyle.notifications, counts: days.map(\.count))
            out += figure(
                id: "chart-notifications", title: "Notifications per day",
                note: "App Store Server Notifications, each counted once however often Apple delivered it.", chart: chart,
                table: DashboardTable(columns: [.text("day"), .number("notifications")], rows: days.map { [$0.day, String($0.count)] }))
        }
        return out + "</div></section>\n"
    }

    /// One count per category, as bars on whole-number ticks.
    private static func countBars(
        title: String, xLabels: [String], xUnit: String, yUnit: String, name: String, color: String, counts: [Int]
    ) -> DashboardChart {
        DashboardChart(
            title: title, xLabels: xLabels, xUnit: xUnit, yUnit: yUnit,
            series: [.init(name: name, color: color, values: counts.map(Double.init), texts: counts.map(String.init))],
            style: .stackedBars, integerTicks: true)
    }

    private static func lostTable(_ lost: [DashboardData.RunCount]) -> DashboardTable {
        DashboardTable(
            columns: [.text("run"), .text("started"), .number("lost orders")],
            rows: lost.map { ["#\($0.runID)", $0.startedAt, String($0.count)] })
    }

    private static func footer() -> String {
        "<footer><p>Made by subrecon <code>report dashboard</code>. Every figure is written as the CSV reports write it; the tables under each chart hold them all.</p>"
            + "<p>This page loads nothing from anywhere and runs no script: it opens offline, from a file or an e-mail attachment.</p></footer>\n"
    }

    // MARK: - Pieces

    private static func figure(id: String, title: String, note: String, chart: DashboardChart, table: DashboardTable) -> String {
        let spans = chart.isWide ? " span" : ""
        var out = "<figure class=\"chart\(spans)\" id=\"\(id)\"><figcaption><h3>\(DashboardHTML.escape(title))</h3>"
        out += "<p class=\"note\">\(DashboardHTML.escape(note))</p></figcaption>"
        out += chart.legendHTML()
        // On a phone the chart scrolls sideways rather than shrinking its text below reading size.
        out += "<div class=\"plot\">" + chart.svg() + "</div>"
        out += table.html()
        return out + "</figure>"
    }

    private static func emptyFigure(id: String, title: String, sentence: String) -> String {
        "<figure class=\"chart\" id=\"\(id)\"><figcaption><h3>\(DashboardHTML.escape(title))</h3></figcaption><p class=\"empty\">\(DashboardHTML.escape(sentence))</p></figure>"
    }

    private static func card(
        label: String, value: String, unit: String? = nil, detail: String? = nil, lead: Bool = false, wide: Bool = false
    ) -> String {
        var out = "<div class=\"card\(lead ? " lead" : "")\(wide ? " wide" : "")\"><div class=\"label\">\(DashboardHTML.escape(label))</div>"
        out += "<div class=\"value\">\(DashboardHTML.escape(value))"
        if let unit { out += "<small>\(DashboardHTML.escape(unit))</small>" }
        out += "</div>"
        if let detail { out += "<div class=\"detail\">\(DashboardHTML.escape(detail))</div>" }
        return out + "</div>"
    }

    /// Values in first-seen order, each once.
    static func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    /// "month" for `2026-11` periods, "day" for `2026-11-26`.
    static func periodUnit(_ periods: [String]) -> String {
        periods.allSatisfy { $0.count == 7 } ? "month" : "day"
    }

    /// A run's x label: its start date (runs are nightly, so one a day).
    private static func runLabel(_ startedAt: String) -> String { String(startedAt.prefix(10)) }

    private static func durationSeconds(_ ms: Int64?) -> String {
        guard let ms else { return "" }
        return DashboardHTML.fixed(Double(ms) / 1000, decimals: 1)
    }

    private static func durationText(_ ms: Int64?) -> String {
        guard let ms else { return "still running" }
        return "\(DashboardHTML.fixed(Double(ms) / 1000, decimals: 1)) s"
    }

    private static func currencyName(_ currency: String) -> String { currency.isEmpty ? "no currency" : currency }

    /// A currency keeps one colour across the page: its place among all currencies, sorted.
    private static func currencyColor(_ currency: String, _ data: DashboardData) -> String {
        let all = orderedUnique((data.metrics.map(\.currency) + data.revenue.map(\.currency)).filter { !$0.isEmpty }.sorted())
        guard let index = all.firstIndex(of: currency) else { return DashboardStyle.palette.last ?? "#475569" }
        return DashboardStyle.color(at: index)
    }

    private static func statusColor(_ status: String, _ index: Int) -> String {
        switch status {
        case "active": return "#0f9d76"
        case "grace_period": return "#f59e0b"
        case "billing_retry": return "#e8590c"
        case "expired": return "#94a3b8"
        case "refunded": return "#d6336c"
        default: return DashboardStyle.color(at: index)
        }
    }

    private static func hasPrice(_ point: DashboardData.RevenuePoint) -> Bool {
        !point.grossText.isEmpty || !point.refundedText.isEmpty
    }

    private static func hasAnyPrice(_ data: DashboardData) -> Bool {
        data.metrics.contains { !$0.currency.isEmpty && !$0.mrrText.isEmpty }
            || data.revenue.contains { !$0.currency.isEmpty && hasPrice($0) }
            || data.currentMRR.contains { !$0.currency.isEmpty && !$0.text.isEmpty }
    }
}
