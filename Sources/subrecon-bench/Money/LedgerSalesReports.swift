import AppStoreSimulator
import Foundation
import GRDB
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Apple's daily Summary Sales Reports for a generated ledger (``LedgerPopulation``), derived from
/// the ledger itself, then perturbed so that `report apple-parity` has something to find:
/// - every Production, payer-owned, priced period on the Pacific day of its purchase (`New` when
///   its transaction reason is `PURCHASE`, else `Renewal`);
/// - every refund (`refund_milliunits` > 0) on the Pacific day of its revocation: a full one as
///   −1 unit at the negative price, a prorated one as a 0-unit row at the negative refunded amount
///   rounded half to even to the currency's minor units;
/// - lines aggregated as Apple does (SKU, country, currency, price, New/Renewal, period, device:
///   30 % of subscriptions on an iPad, the rest on an iPhone), units summed;
/// - then, seeded: lost orders (units Apple billed that the ledger lacks), sales moved to the
///   neighbouring day (the day boundary), and a few units the ledger has that Apple did not bill.
/// No two perturbations of one key (all but the day) lie within two days of each other, so that
/// no shift can cancel against a lost order: the report must find exactly the lost orders added.
struct LedgerSalesReports {
    /// One line of a report before its units: everything Apple aggregates by.
    struct Line: Hashable, Comparable {
        var sku: String
        var country: String
        var currency: String
        /// Per unit, signed: negative for refunds.
        var priceMilliunits: Int64
        var subscription: String
        var device: String

        /// What `report apple-parity` groups day-boundary shifts by: billed lines of one price,
        /// New and Renewal alike.
        var group: String { "\(sku)|\(country)|\(currency)|\(priceMilliunits)" }

        static func < (a: Line, b: Line) -> Bool {
            (a.sku, a.country, a.currency, -a.priceMilliunits, a.subscription, a.device)
                < (b.sku, b.country, b.currency, -b.priceMilliunits, b.subscription, b.device)
        }
    }

    struct Perturbation {
        var lostOrders = 500
        var shiftedUnits = 500
        var ledgerOnlyUnits = 100
        var seed: UInt64 = 0x7061_7269_7479
    }

    /// What was written and what the parity report should therefore find.
    struct Result {
        var files: [String]
        var firstDay: CalendarDay
        var lastDay: CalendarDay
        var rows: Int
        var periodsBilled: Int
        var refunds: Int
        var lostOrders: Int64
        var shiftedUnits: Int64
        var shiftEvents: Int
        var ledgerOnlyUnits: Int64
        /// Prorated refunds that Apple's aggregation folds into another 0-unit row of the same day
        /// and amount (one row counts as one `partial_refund`, so these show as `missing_at_apple`),
        /// plus those that round to nothing (no row at all).
        var refundsFoldedAway: Int
        var seconds: Double
    }

    static let vendorNumber = "80012345"
    static let columns = SummarySalesReportHeader.columns

    var ledgerPath: String
    var folder: String
    var nowMs: Int64
    var perturbation = Perturbation()

    func write() throws -> Result {
        let watch = Stopwatch()
        let pacific = try PacificTime()
        let today = pacific.day(ofMs: nowMs)
        var days: [Int64: [Line: Int64]] = [:]
        var partialRefunds: [Int64: [Line: Int]] = [:]
        var periods = 0, refunds = 0, foldedAway = 0
        var firstOrdinal = Int64.max
        let queue = try DatabaseQueue(path: ledgerPath)
        try queue.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: BenchmarkSQL.ledgerSalesRows)
            while let row = try rows.next() {
                let sku: String = row[0]
                let currency: String = row[4]
                let country = (row[5] as String?).flatMap { CountryCode.alpha2(alpha3: $0) } ?? ""
                let price: Int64 = row[3] ?? 0
                let reason: String? = row[8]
                let subscription = reason == "PURCHASE" ? "New" : "Renewal"
                let device = ((Int64(row[9] as String) ?? 0) / 1000) % 10 < 3 ? "iPad" : "iPhone"
                if price > 0, let purchaseMs: Int64 = row[1] {
                    let day = pacific.day(ofMs: purchaseMs).ordinal
                    firstOrdinal = min(firstOrdinal, day)
                    let line = Line(sku: sku, country: country, currency: currency, priceMilliunits: price, subscription: subscription, device: device)
                    days[day, default: [:]][line, default: 0] += 1
                    periods += 1
                }
                let refund: Int64 = row[7] ?? 0
                guard refund > 0, let cancelledMs: Int64 = row[2] else { continue }
                let day = pacific.day(ofMs: cancelledMs).ordinal
                refunds += 1
                if (row[6] as String?) == "REFUND_PRORATED" {
                    let amount = Self.roundedToMinorUnits(refund, currency: currency)
                    guard amount > 0 else {
                        foldedAway += 1
                        continue
                    }
                    let line = Line(sku: sku, country: country, currency: currency, priceMilliunits: -amount, subscription: subscription, device: device)
                    partialRefunds[day, default: [:]][line, default: 0] += 1
                } else if price > 0 {
                    let line = Line(sku: sku, country: country, currency: currency, priceMilliunits: -price, subscription: subscription, device: device)
                    days[day, default: [:]][line, default: 0] -= 1
                }
            }
        }
        guard firstOrdinal < today.ordinal else {
            throw ChildProcess.SpawnError(description: "the ledger has no billed period before today")
        }
        let reportDays = Array(firstOrdinal..<today.ordinal)
        for (day, lines) in partialRefunds {
            for (line, count) in lines {
                // A 100 % prorated refund has a full refund's amount: Apple's aggregated line
                // has room for only one of them.
                guard days[day]?[line] == nil else {
                    foldedAway += count
                    continue
                }
                days[day, default: [:]][line] = 0
                foldedAway += count - 1
            }
        }

        var perturbed = Perturbed(days: days, reportDays: reportDays, seed: perturbation.seed)
        let lost = perturbed.addLostOrders(perturbation.lostOrders)
        let shifted = perturbed.shift(perturbation.shiftedUnits)
        let ledgerOnly = perturbed.remove(perturbation.ledgerOnlyUnits)

        var files: [String] = []
        var rowCount = 0
        for ordinal in reportDays {
            let day = CalendarDay(ordinal: ordinal)
            let lines = (perturbed.days[ordinal] ?? [:]).sorted { $0.key < $1.key }
            let path = folder + "/S_D_\(Self.vendorNumber)_\(day.text.replacingOccurrences(of: "-", with: "")).txt"
            let text = Self.text(day: day, lines: lines)
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                throw ChildProcess.SpawnError(description: "cannot write \(path)")
            }
            files.append(path)
            rowCount += lines.count
        }
        return Result(
            files: files, firstDay: CalendarDay(ordinal: reportDays[0]), lastDay: CalendarDay(ordinal: reportDays[reportDays.count - 1]),
            rows: rowCount, periodsBilled: periods, refunds: refunds, lostOrders: lost, shiftedUnits: shifted.units,
            shiftEvents: shifted.events, ledgerOnlyUnits: ledgerOnly, refundsFoldedAway: foldedAway, seconds: watch.seconds)
    }

    /// One day's file: the header, then one row a line.
    static func text(day: CalendarDay, lines: [(key: Line, value: Int64)]) -> String {
        let date = String(format: "%02d/%02d/%04d", day.month, day.day, day.year)
        var text = columns.joined(separator: "\t") + "\n"
        for (line, units) in lines {
            let digits = minorDigits(line.currency)
            let period = line.sku.hasSuffix("weekly") ? "7 Days" : (line.sku.hasSuffix("yearly") ? "1 Year" : "1 Month")
            let proceeds = halfEven(abs(line.priceMilliunits) * 7, by: 10 * minorUnit(digits)) * minorUnit(digits)
            let cells = [
                "APPLE", "US", line.sku, "Example Developer", line.sku, " ", "IAY", String(units),
                decimal(proceeds, digits: digits), date, date, line.currency, line.country, line.currency,
                String(1_500_000_000 + line.sku.utf8.reduce(0 as UInt64) { $0 &* 31 &+ UInt64($1) } % 500_000_000), decimal(line.priceMilliunits, digits: digits), " ",
                "subrecon.app", line.subscription, period, "Productivity", " ", line.device, "iOS", " ", " ", " ", " ",
            ]
            text += cells.joined(separator: "\t") + "\n"
        }
        return text
    }

    static func minorDigits(_ currency: String) -> Int { currency == "JPY" ? 0 : 2 }

    /// Milliunits in one minor unit (10 for cents, 1000 for whole yen).
    static func minorUnit(_ digits: Int) -> Int64 { digits == 0 ? 1000 : (digits == 1 ? 100 : 10) }

    static func roundedToMinorUnits(_ milliunits: Int64, currency: String) -> Int64 {
        let unit = minorUnit(minorDigits(currency))
        return halfEven(milliunits, by: unit) * unit
    }

    /// `value / divisor` for a non-negative value, halves to the even neighbour.
    static func halfEven(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        let twice = 2 * (value % divisor)
        return twice > divisor || (twice == divisor && quotient % 2 != 0) ? quotient + 1 : quotient
    }

    /// `9.99`, `-38.25`, `1500`.
    static func decimal(_ milliunits: Int64, digits: Int) -> String {
        let magnitude = milliunits.magnitude
        var text = (milliunits < 0 ? "-" : "") + String(magnitude / 1000)
        guard digits > 0 else { return text }
        let fraction = String(magnitude % 1000 + 1000).dropFirst()
        text += "." + fraction.prefix(digits)
        return text
    }
}

/// The days' lines and the seeded changes made to them.
private struct Perturbed {
    var days: [Int64: [LedgerSalesReports.Line: Int64]]
    let reportDays: [Int64]
    var rng: BenchRandom
    /// Days each group has been changed on.
    var touched: [String: Set<Int64>] = [:]

    init(days: [Int64: [LedgerSalesReports.Line: Int64]], reportDays: [Int64], seed: UInt64) {
        self.days = days
        self.reportDays = reportDays
        rng = BenchRandom(seed: seed)
    }

    /// Whether `group` is free on `days` and two days either side.
    func isFree(_ group: String, _ days: [Int64]) -> Bool {
        guard let used = touched[group] else { return true }
        return days.allSatisfy { day in (day - 2...day + 2).allSatisfy { !used.contains($0) } }
    }

    /// A billed line of a random day (not the first or last) with at least `units` units, free to change.
    mutating func pick(units: Int64, alsoFree: (Int64) -> [Int64]) -> (day: Int64, line: LedgerSalesReports.Line)? {
        guard reportDays.count >= 3 else { return nil }
        for _ in 0..<200 {
            let day = reportDays[1 + Int(rng.next() % UInt64(reportDays.count - 2))]
            let billed = (days[day] ?? [:]).filter { $0.key.priceMilliunits > 0 && $0.value >= units }.keys.sorted()
            guard !billed.isEmpty else { continue }
            let line = billed[Int(rng.next() % UInt64(billed.count))]
            let affected = alsoFree(day)
            if isFree(line.group, affected) {
                for other in affected { touched[line.group, default: []].insert(other) }
                return (day, line)
            }
        }
        return nil
    }

    /// Units Apple billed that the ledger never recorded, 1-3 a line; returns the units added.
    mutating func addLostOrders(_ total: Int) -> Int64 {
        var added: Int64 = 0
        while added < total {
            let units = min(Int64(total) - added, 1 + Int64(rng.next() % 3))
            guard let (day, line) = pick(units: 1, alsoFree: { [$0] }) else { break }
            days[day, default: [:]][line, default: 0] += units
            added += units
        }
        return added
    }

    /// Sales Apple put on the neighbouring day (a purchase near Pacific midnight), 1-3 a line.
    mutating func shift(_ total: Int) -> (units: Int64, events: Int) {
        var moved: Int64 = 0
        var events = 0
        while moved < total {
            let units = min(Int64(total) - moved, 1 + Int64(rng.next() % 3))
            let direction: Int64 = rng.next() % 2 == 0 ? 1 : -1
            guard let (day, line) = pick(units: units, alsoFree: { [$0, $0 + direction] }) else { break }
            days[day]![line]! -= units
            if days[day]![line]! == 0 { days[day]![line] = nil }
            days[day + direction, default: [:]][line, default: 0] += units
            moved += units
            events += 1
        }
        return (moved, events)
    }

    /// Units the ledger has that Apple never billed (a period recorded twice), 1-2 a line.
    mutating func remove(_ total: Int) -> Int64 {
        var removed: Int64 = 0
        while removed < total {
            let units = min(Int64(total) - removed, 1 + Int64(rng.next() % 2))
            guard let (day, line) = pick(units: units + 1, alsoFree: { [$0] }) else { break }
            days[day]![line]! -= units
            removed += units
        }
        return removed
    }
}
