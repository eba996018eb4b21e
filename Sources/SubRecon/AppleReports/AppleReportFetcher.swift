import Logging
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `apple-reports fetch`: each Pacific-time day of the window, oldest first, one request at a
/// time, each day parsed whole and stored in one transaction (replacing an earlier copy).
///
/// Resumable: a day stored at least ``settledDays`` days after it ended is final and not asked
/// for again (unless `refetch`), so a 90-day fetch killed half-way asks only for the days it had
/// not stored, plus the recent days Apple may still reissue.
public struct AppleReportFetcher: Sendable {
    /// Apple withdraws and reissues bad daily reports within days; a copy fetched a week after its
    /// day is kept as final.
    public static let settledDays: Int64 = 7

    let store: any SubscriptionStore
    let client: SalesReportClient
    let vendorNumber: String
    let clock: @Sendable () -> Int64
    let logger: Logger

    public init(
        store: any SubscriptionStore, client: SalesReportClient, vendorNumber: String, clock: @escaping @Sendable () -> Int64,
        logger: Logger
    ) {
        self.store = store
        self.client = client
        self.vendorNumber = vendorNumber
        self.clock = clock
        self.logger = logger
    }

    /// What happened to one day.
    public enum DayOutcome: Sendable, Equatable {
        case stored(AppleReportStoreResult, rows: Int)
        case noSales(AppleReportStoreResult)
        case notYetAvailable
        case noLongerAvailable
        /// Stored before, and final.
        case kept
        /// Apple's answer could not be used; the day is left as it was.
        case failed(String)
    }

    public struct Outcome: Sendable {
        public var days: [(day: CalendarDay, outcome: DayOutcome)] = []
        /// Set when the fetch stopped before the window's end (rate limit, Apple unavailable):
        /// the remaining days were not asked for.
        public var stoppedBy: SalesReportFetchError?

        /// Exit 0 unless a day failed or the fetch stopped early (then 1).
        public var allAnswered: Bool {
            stoppedBy == nil && !days.contains { if case .failed = $0.outcome { true } else { false } }
        }
    }

    /// Fetches the window. A configuration error (401, 403, a bad request) stops at once and is
    /// thrown; days already stored stay stored.
    public func fetch(
        _ window: AppleReportWindow, refetch: Bool = false, progress: (CalendarDay, DayOutcome) -> Void = { _, _ in }
    ) async throws -> Outcome {
        let pacific = try PacificTime()
        let final = refetch ? [] : try await finalDays(window, pacific: pacific)
        var outcome = Outcome()
        var version = SalesReportClient.documentedVersion
        for day in window.days {
            if final.contains(day) {
                outcome.days.append((day, .kept))
                progress(day, .kept)
                continue
            }
            // Apple said no request is left this hour: stop rather than draw 429s.
            if client.requestsLeftThisHour == 0 {
                outcome.stoppedBy = .rateLimited("X-Rate-Limit says no request is left this hour for this key")
                return outcome
            }
            let dayOutcome: DayOutcome
            do {
                switch try await client.download(day: day, version: version) {
                case .report(let bytes, let served):
                    version = served
                    dayOutcome = try await store(bytes, day: day, version: served)
                case .noSales(let served):
                    version = served
                    let empty = AppleReportDay(
                        day: day, vendorNumber: vendorNumber, source: .fetch, fileName: nil, reportVersion: served,
                        sha256: Self.sha256([]), noSales: true, rows: [])
                    dayOutcome = .noSales(try await store.storeAppleReport(empty, nowMs: clock()))
                case .notYetAvailable:
                    dayOutcome = .notYetAvailable
                case .noLongerAvailable:
                    dayOutcome = .noLongerAvailable
                }
            } catch let error as SalesReportFetchError {
                if error.isConfigurationError { throw error }
                if case .unexpectedAnswer(let reason) = error {
                    dayOutcome = .failed(reason)
                } else {
                    outcome.stoppedBy = error
                    logger.warning("stopping the fetch", metadata: ["day": "\(day.text)", "reason": "\(error.description)"])
                    return outcome
                }
            }
            if case .failed(let reason) = dayOutcome {
                logger.warning("a day's report was not stored", metadata: ["day": "\(day.text)", "reason": "\(reason)"])
            }
            outcome.days.append((day, dayOutcome))
            progress(day, dayOutcome)
        }
        return outcome
    }

    /// Parses the report whole and stores it; an unusable file is a failed day, nothing stored.
    private func store(_ bytes: [UInt8], day: CalendarDay, version: String) async throws -> DayOutcome {
        let report: SalesReport
        do {
            report = try SalesReportParser.parse(bytes, file: "the report of \(day.text)")
        } catch {
            return .failed(error.description)
        }
        guard report.day == day else {
            return .failed("Apple's report for \(day.text) is dated \(report.day.text)")
        }
        let stored = AppleReportDay(
            day: day, vendorNumber: vendorNumber, source: .fetch, fileName: nil, reportVersion: version,
            sha256: Self.sha256(bytes), noSales: false, rows: report.rows)
        return .stored(try await store.storeAppleReport(stored, nowMs: clock()), rows: report.rows.count)
    }

    /// The window's days stored at least ``settledDays`` days after they ended.
    private func finalDays(_ window: AppleReportWindow, pacific: PacificTime) async throws -> Set<CalendarDay> {
        let stored = try await store.withReadSnapshot { db in
            try await AppleReportDays.read(db, since: window.since, until: window.until)
        }
        return Set(stored.filter { $0.storedAtMs >= pacific.startMs(of: $0.day.adding(days: 1 + Self.settledDays)) }.map(\.day))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        ReceiptFingerprint.sha256Hex(bytes: bytes)
    }
}
