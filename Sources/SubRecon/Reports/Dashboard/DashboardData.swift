
/// Everything `report dashboard` shows, already read from the store: text exactly as the CSV reports
/// write it (amounts, rates, dates) plus the integers the charts are drawn from.
///
/// The renderer does no arithmetic on money beyond scaling bars: amounts are never added across
/// currencies, and every figure a person reads is one of the texts given here. Arrays are drawn in
/// the order given; the caller sorts them as the CSV reports do (by period, then currency; runs by id).
public struct DashboardData: Sendable, Equatable {
    /// One status of `report subscriptions` and how many subscriptions have it now.
    public struct StatusCount: Sendable, Equatable {
        public var status: String
        public var count: Int
        public init(status: String, count: Int) {
            self.status = status
            self.count = count
        }
    }

    /// An amount in one currency: milliunits to draw, decimal text (as `report metrics` writes `mrr`) to read.
    public struct Money: Sendable, Equatable {
        public var currency: String
        public var milliunits: Int64
        /// Empty when no price is known (as the CSV leaves it).
        public var text: String
        public init(currency: String, milliunits: Int64, text: String) {
            self.currency = currency
            self.milliunits = milliunits
            self.text = text
        }
    }

    /// One row of `report metrics` (one period, one currency).
    public struct MetricsPoint: Sendable, Equatable {
        public var period: String
        /// Empty for subscriptions whose price (and so currency) is not known yet.
        public var currency: String
        public var activePaid: Int
        public var activeTrials: Int
        public var mrrMilliunits: Int64
        /// `mrr` as the CSV writes it; empty when no price is known.
        public var mrrText: String
        public var churned: Int
        /// `churn_rate` as the CSV writes it (`0.0500`); empty when nobody was paid at the previous end.
        public var churnRate: String
        public init(
            period: String, currency: String, activePaid: Int, activeTrials: Int, mrrMilliunits: Int64, mrrText: String,
            churned: Int, churnRate: String
        ) {
            self.period = period
            self.currency = currency
            self.activePaid = activePaid
            self.activeTrials = activeTrials
            self.mrrMilliunits = mrrMilliunits
            self.mrrText = mrrText
            self.churned = churned
            self.churnRate = churnRate
        }
    }

    /// `report revenue` for one month and one currency, summed over products by the caller (which
    /// also writes the texts, since only it knows each currency's minor units).
    public struct RevenuePoint: Sendable, Equatable {
        public var period: String
        /// Empty for periods whose price is not known yet (they are counted, not drawn).
        public var currency: String
        public var paidPeriods: Int
        public var refunds: Int
        public var grossMilliunits: Int64
        public var refundedMilliunits: Int64
        public var netMilliunits: Int64
        public var grossText: String
        public var refundedText: String
        public var netText: String
        public var unpricedPeriods: Int
        public init(
            period: String, currency: String, paidPeriods: Int, refunds: Int, grossMilliunits: Int64,
            refundedMilliunits: Int64, netMilliunits: Int64, grossText: String, refundedText: String, netText: String,
            unpricedPeriods: Int = 0
        ) {
            self.period = period
            self.currency = currency
            self.paidPeriods = paidPeriods
            self.refunds = refunds
            self.grossMilliunits = grossMilliunits
            self.refundedMilliunits = refundedMilliunits
            self.netMilliunits = netMilliunits
            self.grossText = grossText
            self.refundedText = refundedText
            self.netText = netText
            self.unpricedPeriods = unpricedPeriods
        }
    }

    /// One nightly run, as `status` lists it.
    public struct Run: Sendable, Equatable {
        public var id: Int64
        public var kind: String
        /// ISO 8601 UTC (`2026-11-22T02:00:00Z`).
        public var startedAt: String
        /// Nil while the run has not finished.
        public var durationMs: Int64?
        public var updated: Int
        public var unchanged: Int
        public var invalid: Int
        /// 21010 or the Server API's account-gone answers (counted apart from `invalid`, as the run's summary does).
        public var accountGone: Int
        public var failed: Int
        /// Nil while the run has not finished.
        public var exitCode: Int?
        public var status: String
        public init(
            id: Int64, kind: String, startedAt: String, durationMs: Int64?, updated: Int, unchanged: Int, invalid: Int,
            accountGone: Int = 0, failed: Int, exitCode: Int?, status: String
        ) {
            self.accountGone = accountGone
            self.id = id
            self.kind = kind
            self.startedAt = startedAt
            self.durationMs = durationMs
            self.updated = updated
            self.unchanged = unchanged
            self.invalid = invalid
            self.failed = failed
            self.exitCode = exitCode
            self.status = status
        }
    }

    /// A count for one UTC day (`2026-11-22`).
    public struct DayCount: Sendable, Equatable {
        public var day: String
        public var count: Int
        public init(day: String, count: Int) {
            self.day = day
            self.count = count
        }
    }

    /// A count for one run: lost orders, the periods that run found first.
    public struct RunCount: Sendable, Equatable {
        public var runID: Int64
        public var startedAt: String
        public var count: Int
        public init(runID: Int64, startedAt: String, count: Int) {
            self.runID = runID
            self.startedAt = startedAt
            self.count = count
        }
    }

    /// The latest `report apple-parity` summary: the ledger against Apple's own sales reports.
    public struct AppleParity: Sendable, Equatable {
        /// A Pacific-time day whose differences no shift explains.
        public struct WorstDay: Sendable, Equatable {
            public var day: String
            /// Units unexplained that day (lost orders and periods Apple did not bill).
            public var unexplainedUnits: Int
            /// Of those, lost orders (`missing_in_ledger`, billed).
            public var lostOrders: Int
            public init(day: String, unexplainedUnits: Int, lostOrders: Int) {
                self.day = day
                self.unexplainedUnits = unexplainedUnits
                self.lostOrders = lostOrders
            }
        }

        public var firstDay: String
        public var lastDay: String
        public var daysCompared: Int
        public var billedMatched: Int
        /// Units Apple billed that the ledger never recorded.
        public var lostOrders: Int
        /// The days with the most unexplained units, most first (at most five).
        public var worstDays: [WorstDay]
        public init(
            firstDay: String, lastDay: String, daysCompared: Int, billedMatched: Int, lostOrders: Int,
            worstDays: [WorstDay] = []
        ) {
            self.firstDay = firstDay
            self.lastDay = lastDay
            self.daysCompared = daysCompared
            self.billedMatched = billedMatched
            self.lostOrders = lostOrders
            self.worstDays = worstDays
        }
    }

    /// When the page was made, ISO 8601 UTC.
    public var generatedAt: String
    /// Which database was read, already redacted by the caller (never a password).
    public var databaseLabel: String
    /// `--since`, when given.
    public var since: String?
    /// `--app`: the apps the figures are for (empty: every app of the deployment).
    public var apps: [String] = []
    /// Subscriptions by status now, in the order to show (active, grace_period, billing_retry, ...).
    public var statusCounts: [StatusCount]
    /// The `entitled` count of `report subscriptions` (family-shared included).
    public var entitled: Int
    /// MRR per currency now: the `metrics` rows of the current period (priced currencies only).
    public var currentMRR: [Money]
    /// `report metrics` rows, by period then currency.
    public var metrics: [MetricsPoint]
    /// `report revenue` by month and currency, by period then currency.
    public var revenue: [RevenuePoint]
    /// Nightly runs, oldest first.
    public var runs: [Run]
    /// Notifications received per UTC day, oldest first (days with none may be left out).
    public var notificationsPerDay: [DayCount]
    /// Lost orders found per run, oldest first.
    public var lostOrdersPerRun: [RunCount]
    /// Billed periods in the window whose price is unknown (seen only through verifyReceipt).
    public var unpricedPeriods: Int
    /// The latest comparison with Apple's sales reports; nil when none was made.
    public var appleParity: AppleParity?

    public init(
        generatedAt: String, databaseLabel: String, since: String? = nil, statusCounts: [StatusCount] = [],
        entitled: Int = 0, currentMRR: [Money] = [], metrics: [MetricsPoint] = [], revenue: [RevenuePoint] = [],
        runs: [Run] = [], notificationsPerDay: [DayCount] = [], lostOrdersPerRun: [RunCount] = [],
        unpricedPeriods: Int = 0, appleParity: AppleParity? = nil
    ) {
        self.generatedAt = generatedAt
        self.databaseLabel = databaseLabel
        self.since = since
        self.statusCounts = statusCounts
        self.entitled = entitled
        self.currentMRR = currentMRR
        self.metrics = metrics
        self.revenue = revenue
        self.runs = runs
        self.notificationsPerDay = notificationsPerDay
        self.lostOrdersPerRun = lostOrdersPerRun
        self.unpricedPeriods = unpricedPeriods
        self.appleParity = appleParity
    }
}
