import Foundation
import GRDB
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// A subscriber base with a year of billed periods, written straight into a fresh SQLite store for
/// the money reports' benchmark: monthly, yearly and weekly plans in four currencies, free trials
/// that convert or not, refunds (full and prorated), family sharing, churn. Deterministic from the
/// seed, so every run and both stores measure the same ledger.
struct LedgerPopulation {
    var subscriptions: Int
    var months: Int
    var nowMs: Int64
    var seed: UInt64 = 0x6C65_6467_6572

    struct Result {
        var subscriptions: Int
        var periods: Int
        var seconds: Double
    }

    static let day: Int64 = 86_400_000
    static let currencies: [(code: String, storefront: String, monthly: Int64, yearly: Int64, weekly: Int64)] = [
        ("USD", "USA", 9_990, 99_990, 2_990), ("EUR", "DEU", 9_990, 99_990, 2_990),
        ("JPY", "JPN", 1_500_000, 15_000_000, 400_000), ("GBP", "GBR", 8_990, 89_990, 2_490),
    ]

    func write(path: String) throws -> Result {
        let watch = Stopwatch()
        let database = try AppDatabase.open(path: path)
        var periods = 0
        var rng = BenchRandom(seed: seed)
        let start = nowMs - Int64(months) * 30 * Self.day
        let batch = 5_000
        var first = 0
        while first < subscriptions {
            let last = min(subscriptions, first + batch)
            var rows: [[DatabaseValue]] = []
            var subscriptionRows: [[DatabaseValue]] = []
            for index in first..<last {
                let made = makeSubscription(index, start: start, rng: &rng)
                rows += made.periods
                subscriptionRows.append(made.subscription)
            }
            periods += rows.count
            try database.writer.write { db in
                let insert = try db.cachedStatement(
                    sql: BenchmarkSQL.insertLedgerPeriod)
                for row in rows { try insert.execute(arguments: StatementArguments(row)) }
                let subscription = try db.cachedStatement(
                    sql: BenchmarkSQL.insertLedgerSubscription)
                for row in subscriptionRows { try subscription.execute(arguments: StatementArguments(row)) }
            }
            first = last
        }
        try database.writer.writeWithoutTransaction { db in
            try db.execute(sql: BenchmarkSQL.analyze)
            try db.execute(sql: BenchmarkSQL.checkpoint)
        }
        return Result(subscriptions: subscriptions, periods: periods, seconds: watch.seconds)
    }

    /// One subscription's periods (renewals rows) and its subscriptions row.
    func makeSubscription(_ index: Int, start: Int64, rng: inout BenchRandom) -> (periods: [[DatabaseValue]], subscription: [DatabaseValue]) {
        let money = Self.currencies[Int(rng.next() % 4)]
        let plan = rng.next() % 10  // 0-7 monthly, 8 yearly, 9 weekly
        let (product, length, price): (String, Int64, Int64) =
            switch plan {
            case 8: ("com.example.pro.yearly", 365 * Self.day, money.yearly)
            case 9: ("com.example.pro.weekly", 7 * Self.day, money.weekly)
            default: ("com.example.pro.monthly", 30 * Self.day, money.monthly)
            }
        let family = rng.next() % 100 < 3
        let trial = plan != 8 && rng.next() % 100 < 30
        // Most subscriptions run through the whole window (a year: 12-13 monthly periods); a fifth
        // churn at a random period. Weekly plans run 4-52 weeks, yearly ones once or twice: about
        // twelve periods a subscription on average, as docs/performance.md sizes the ledger
        // ("Money reports over a large ledger": 100,000 subscriptions ≈ 1.2 M periods).
        let full = plan == 9 ? 52 : (plan == 8 ? 2 : months + 1)
        let churns = rng.next() % 100 < 20
        let lasts = plan == 9
            ? 4 + Int(rng.next() % 49)
            : (churns ? 1 + Int(rng.next() % UInt64(full)) : full)
        var purchase = start + Int64(rng.next() % UInt64(30 * Self.day))
        let otid = String(3_000_000_000_000 + Int64(index) * 1_000)
        let user = "user-\(index)"
        var rows: [[DatabaseValue]] = []
        var count = 0
        if trial {
            let expires = purchase + 7 * Self.day
            rows.append(row(user, otid, count, product, purchase, expires, nil, price: 0, money, offer: "FREE_TRIAL", reason: "PURCHASE", family: family))
            count += 1
            purchase = expires
        }
        var expires = purchase
        while count < lasts + (trial ? 1 : 0), purchase < nowMs {
            expires = purchase + length
            let refunded = rng.next() % 100 < 2
            let prorated = refunded && rng.next() % 2 == 0
            let cancelled: Int64? = refunded ? purchase + Self.day * Int64(1 + rng.next() % 10) : nil
            let refundType: String? = refunded ? (prorated ? "REFUND_PRORATED" : "REFUND_FULL") : nil
            let percentage: Int64? = prorated ? Int64(rng.next() % 100_001) : nil
            let refund: Int64 = refunded ? (prorated ? price * (percentage ?? 0) / 100_000 : price) : 0
            rows.append(
                row(user, otid, count, product, purchase, expires, cancelled, price: price, money, offer: nil,
                    reason: count == 0 ? "PURCHASE" : "RENEWAL", family: family, revocation: refundType,
                    percentage: percentage, refund: refund))
            count += 1
            purchase = expires
            if refunded { break }
        }
        let status = expires > nowMs ? "active" : "expired"
        let subscription: [DatabaseValue] = [
            user.databaseValue, otid.databaseValue, product.databaseValue, status.databaseValue, expires.databaseValue,
            (family ? "FAMILY_SHARED" : "PURCHASED").databaseValue, nowMs.databaseValue, start.databaseValue, nowMs.databaseValue,
        ]
        return (rows, subscription)
    }

    private func row(
        _ user: String, _ otid: String, _ n: Int, _ product: String, _ purchase: Int64, _ expires: Int64, _ cancelled: Int64?,
        price: Int64, _ money: (code: String, storefront: String, monthly: Int64, yearly: Int64, weekly: Int64),
        offer: String?, reason: String, family: Bool, revocation: String? = nil, percentage: Int64? = nil, refund: Int64 = 0
    ) -> [DatabaseValue] {
        let key = String(Int64(otid)! + Int64(n) + 1)
        return [
            user.databaseValue, key.databaseValue, key.databaseValue, otid.databaseValue, key.databaseValue,
            product.databaseValue, purchase.databaseValue, expires.databaseValue, cancelled.databaseValue,
            (offer == "FREE_TRIAL" ? 1 : 0).databaseValue, nowMs.databaseValue, price.databaseValue,
            money.code.databaseValue, money.storefront.databaseValue, (offer == nil ? nil : 1 as Int64?).databaseValue,
            offer.databaseValue, (offer == nil ? nil : "P1W" as String?).databaseValue, reason.databaseValue,
            (family ? "FAMILY_SHARED" : "PURCHASED").databaseValue, revocation.databaseValue, percentage.databaseValue,
            refund.databaseValue, nowMs.databaseValue,
        ]
    }
}

