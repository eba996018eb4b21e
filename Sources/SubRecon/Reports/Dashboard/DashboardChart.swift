
/// One inline SVG chart: categories along x (periods, days, runs), one or more series of numbers
/// drawn as lines or bars, with y ticks, the y unit and thinned x labels. The page's tables carry
/// the exact figures; the chart only has to be right to the pixel.
struct DashboardChart: Sendable {
    /// How the series are drawn.
    enum Style: Sendable {
        /// One line per series (points marked while there are few).
        case lines
        /// Side by side within each category.
        case groupedBars
        /// On top of one another within each category (negatives stack downwards).
        case stackedBars
    }

    /// One series: a name for the legend, its colour, one value per category (nil: nothing there).
    struct Series: Sendable {
        var name: String
        var color: String
        var values: [Double?]
        /// Per category, the figure as text, for the hover title of a mark (as the table writes it).
        var texts: [String]
    }

    var title: String
    var xLabels: [String]
    /// What one category is ("month", "day", "run"), written at the end of the x axis.
    var xUnit: String
    /// The unit of y ("USD / month", "subscriptions"), written above the y axis.
    var yUnit: String
    var series: [Series]
    var style: Style
    /// Counts (subscriptions, receipts, notifications): ticks at whole numbers only, never `0.5`.
    var integerTicks = false
    /// Written after each y tick (`%` for rates shown as percentages).
    var tickSuffix = ""
    var height: Double = 260

    /// Charts with more categories than this span the page's width, so their bars stay apart.
    static let wideAbove = 40

    /// Spans the page whatever its number of categories (its table needs the room).
    var spansPage = false

    /// Whether the chart spans the page (the page gives it the full width of its grid).
    var isWide: Bool { spansPage || xLabels.count > Self.wideAbove }

    /// The viewBox width, about the width the chart is shown at, so its text shows at about 12 px.
    var width: Double { isWide ? 1200 : 600 }

    /// At most this many x labels, however many categories: 400 days must not overprint.
    static let maximumXLabels = 12

    /// The legend, as HTML: a swatch and the name of each series.
    func legendHTML() -> String {
        var html = "<ul class=\"legend\">"
        for item in series {
            html += "<li><span class=\"swatch\" style=\"background:\(item.color)\"></span>\(DashboardHTML.escape(item.name))</li>"
        }
        return html + "</ul>"
    }

    /// The chart as an `<svg>` element, scaled to its container's width by its viewBox.
    func svg() -> String {
        let left = 64.0, right = 16.0, top = 28.0, bottom = 40.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let count = max(1, xLabels.count)
        let band = plotWidth / Double(count)
        let (low, high, step) = Self.scale(domain: domain(), integer: integerTicks)
        func y(_ value: Double) -> Double { top + plotHeight * (high - value) / (high - low) }
        func c(_ value: Double) -> String { DashboardHTML.coordinate(value) }

        var out = "<svg viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"100%\" role=\"img\" "
        out += "aria-label=\"\(DashboardHTML.escape(title))\" font-size=\"12\">"
        out += "<text class=\"unit\" x=\"\(c(left))\" y=\"14\">\(DashboardHTML.escape(yUnit))</text>"
        // Grid lines and y ticks.
        var tick = low
        var ticks = 0
        while tick <= high + step / 2 && ticks < 20 {
            let ty = y(tick)
            let isZero = abs(tick) < step / 2
            out += "<line class=\"\(isZero ? "zero" : "grid")\" x1=\"\(c(left))\" x2=\"\(c(width - right))\" y1=\"\(c(ty))\" y2=\"\(c(ty))\"/>"
            out += "<text class=\"tick\" x=\"\(c(left - 8))\" y=\"\(c(ty + 4))\" text-anchor=\"end\">\(DashboardHTML.tick(tick, step: step))\(DashboardHTML.escape(tickSuffix))</text>"
            tick += step
            ticks += 1
        }
        // X labels: as many as fit side by side (about 7 px a character at 12 px), at most a dozen;
        // the last category (the most recent) is always labelled.
        let longest = Double(xLabels.map(\.count).max() ?? 1)
        let fitting = max(2, Int(plotWidth / (longest * 7 + 18)))
        let indices = Self.labelledIndices(count: xLabels.count, maximum: min(fitting, Self.maximumXLabels))
        for index in indices {
            // The last label is anchored inside the plot when centring would push it past the edge.
            var x = left + band * (Double(index) + 0.5)
            var anchor = "middle"
            if index == xLabels.count - 1 && band < longest * 7 {
                x = left + band * Double(index + 1)
                anchor = "end"
            }
            out += "<text class=\"tick\" x=\"\(c(x))\" y=\"\(c(top + plotHeight + 18))\" text-anchor=\"\(anchor)\">\(DashboardHTML.escape(xLabels[index]))</text>"
        }
        out += "<text class=\"unit\" x=\"\(c(width - right))\" y=\"\(c(height - 4))\" text-anchor=\"end\">\(DashboardHTML.escape(xUnit))</text>"

        switch style {
        case .lines: out += lines(left: left, band: band, y: y)
        case .groupedBars: out += groupedBars(left: left, band: band, y: y)
        case .stackedBars: out += stackedBars(left: left, band: band, y: y)
        }
        return out + "</svg>"
    }

    /// The smallest and largest value to show, zero always included so bars start from it.
    private func domain() -> (Double, Double) {
        var low = 0.0, high = 0.0
        for index in 0..<xLabels.count {
            if style == .stackedBars {
                var up = 0.0, down = 0.0
                for item in series {
                    let given = item.values.indices.contains(index) ? item.values[index] ?? 0 : 0
                    let value = given.isFinite ? given : 0
                    if value >= 0 { up += value } else { down += value }
                }
                high = max(high, up)
                low = min(low, down)
            } else {
                for item in series {
                    guard item.values.indices.contains(index), let value = item.values[index], value.isFinite else { continue }
                    high = max(high, value)
                    low = min(low, value)
                }
            }
        }
        return (low, high)
    }

    /// Which categories get an x label: every n-th, so that at most `maximum` show, and the
    /// last, which replaces the regular one before it when that one is less than a step away.
    static func labelledIndices(count: Int, maximum: Int = maximumXLabels) -> [Int] {
        guard count > 0 else { return [] }
        let every = max(1, (count + maximum - 1) / maximum)
        var indices = Array(stride(from: 0, to: count, by: every))
        if let last = indices.last, last != count - 1 {
            // The last label may be anchored at the plot's end, leaning left: keep a full step clear.
            if count - 1 - last < every && indices.count > 1 { indices.removeLast() }
            indices.append(count - 1)
        }
        return indices
    }

    /// Rounds a domain out to "nice" ticks (1, 2 or 5 times a power of ten), four or five of them;
    /// with `integer`, a step of at least 1 (a count of 0.5 subscriptions means nothing).
    static func scale(domain: (Double, Double), integer: Bool = false) -> (low: Double, high: Double, step: Double) {
        var (low, high) = domain
        if high - low <= 0 || !(high - low).isFinite { high = low + 1 }
        let rough = (high - low) / 4
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        var step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? magnitude * 10
        if integer { step = max(1, step.rounded()) }
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        if high == low { high = low + step }
        return (low, high, step)
    }

    private func hover(_ item: Series, _ index: Int) -> String {
        let text = item.texts.indices.contains(index) ? item.texts[index] : ""
        return "<title>\(DashboardHTML.escape("\(xLabels[index]) · \(item.name): \(text)"))</title>"
    }

    private func lines(left: Double, band: Double, y: (Double) -> Double) -> String {
        var out = ""
        let markPoints = xLabels.count <= 40
        for item in series {
            var path = ""
            var points = ""
            var previousDrawn = false
            for index in xLabels.indices {
                guard item.values.indices.contains(index), let value = item.values[index], value.isFinite else {
                    previousDrawn = false
                    continue
                }
                let x = left + band * (Double(index) + 0.5)
                path += "\(previousDrawn ? "L" : "M")\(DashboardHTML.coordinate(x)) \(DashboardHTML.coordinate(y(value)))"
                previousDrawn = true
                let isolated = !(index > 0 && item.values.indices.contains(index - 1) && item.values[index - 1] != nil)
                    && !(item.values.indices.contains(index + 1) && item.values[index + 1] != nil)
                // A point alone would be an invisible line: always mark it; others only while few.
                if markPoints || isolated {
                    points += "<circle class=\"mark\" cx=\"\(DashboardHTML.coordinate(x))\" cy=\"\(DashboardHTML.coordinate(y(value)))\" r=\"3.5\" fill=\"\(item.color)\">\(hover(item, index))</circle>"
                }
            }
            guard !path.isEmpty else { continue }
            out += "<path class=\"mark line\" d=\"\(path)\" fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"2.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\"><title>\(DashboardHTML.escape(item.name))</title></path>"
            out += points
        }
        return out
    }

    private func groupedBars(left: Double, band: Double, y: (Double) -> Double) -> String {
        var out = ""
        let groups = Double(max(1, series.count))
        // Leave a gap between categories, but never let a bar vanish below a pixel.
        let inner = band * (band > 8 ? 0.72 : 0.9)
        let barWidth = max(0.6, inner / groups)
        for (seriesIndex, item) in series.enumerated() {
            for index in xLabels.indices {
                guard item.values.indices.contains(index), let value = item.values[index], value.isFinite, value != 0 else { continue }
                let x = left + band * Double(index) + (band - inner) / 2 + barWidth * Double(seriesIndex)
                let top = min(y(value), y(0)), height = abs(y(value) - y(0))
                out += rect(
                    x: x, y: top, width: barWidth, height: height, downwards: value < 0, color: item.color,
                    title: hover(item, index))
            }
        }
        return out
    }

    private func stackedBars(left: Double, band: Double, y: (Double) -> Double) -> String {
        var out = ""
        let inner = band * (band > 8 ? 0.72 : 0.9)
        for index in xLabels.indices {
            var up = 0.0, down = 0.0
            for item in series {
                guard item.values.indices.contains(index), let value = item.values[index], value.isFinite, value != 0 else { continue }
                let start = value > 0 ? up : down
                let end = start + value
                if value > 0 { up = end } else { down = end }
                let top = min(y(start), y(end)), height = abs(y(end) - y(start))
                out += rect(
                    x: left + band * Double(index) + (band - inner) / 2, y: top, width: max(0.6, inner), height: height,
                    downwards: value < 0, color: item.color, title: hover(item, index))
            }
        }
        return out
    }

    private func rect(
        x: Double, y: Double, width: Double, height: Double, downwards: Bool, color: String, title: String
    ) -> String {
        // A tiny value still gets a visible sliver: a non-zero figure must never look like none.
        let shown = max(height, 1)
        let c = DashboardHTML.coordinate
        let top = downwards ? y : y - (shown - height)
        return "<rect class=\"mark\" x=\"\(c(x))\" y=\"\(c(top))\" width=\"\(c(width))\" height=\"\(c(shown))\" fill=\"\(color)\">\(title)</rect>"
    }
}
