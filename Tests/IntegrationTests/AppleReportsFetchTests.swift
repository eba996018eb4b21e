import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Logging
import Synchronization
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@_spi(RawSQL) @testable import SubReconStore

/// `apple-reports fetch`'s client and fetcher against the simulator over loopback: gzip reports
/// stored a day per transaction, Apple's version drift followed once, a day not yet published
/// skipped (never stored as zero), 429s waited out or stopping the fetch, a broken report not
/// stored, configuration errors (key, vendor number) stopping at once with nothing stored.
@Suite struct AppleReportsFetchTests {
    /// The waits the client asked for (none is slept).
    final class Waits: Sendable {
        private let waits = Mutex<[Duration]>([])
        var all: [Duration] { waits.withLock { $0 } }
        var sleep: @Sendable (Duration) async throws -> Void { { duration in self.waits.withLock { $0.append(duration) } } }
    }

    static func world(_ options: SalesReportOptions = SalesReportOptions()) async throws -> TestWorld {
        let world = try await TestWorld.make(salesReports: options)
        try await LedgerScenarioRunTests.importLedgerScenarios(world)
        return world
    }

    static func storedDays(_ world: TestWorld) async throws -> [AppleReportDays.Stored] {
        try await world.store.withReadSnapshot { db in try await AppleReportDays.read(db, since: nil, until: nil) }
    }

    static func window(_ world: TestWorld, days: Int64 = 7) throws -> AppleReportWindow {
        let today = try PacificTime().day(ofMs: world.clock.nowMs)
        return try AppleReportWindow.parse(since: today.adding(days: -days).text, until: today.text, nowMs: world.clock.nowMs)
    }

    @Test func eachDayIsStoredOnceAndAReissueReplacesIt() async throws {
        try await Self.world().closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try Self.window(world, days: 30)
            let first = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            #expect(first.allAnswered)
            let stored = try await Self.storedDays(world)
            #expect(stored.map(\.day) == window.days.filter { day in
                first.days.contains { $0.day == day && $0.outcome != .notYetAvailable }
            })
            // Renewals and refunds of the ledger scenarios: some days have rows, some had no sales.
            #expect(stored.contains { $0.rowCount > 0 } && stored.contains { $0.noSales })
            let rowsBefore = try await world.count("SELECT COUNT(*) FROM apple_report_rows")
            #expect(rowsBefore == Int(stored.reduce(0) { $0 + $1.rowCount }))

            // Again a day later: the last week is not final, so it is asked again and replaced whole
            // (identical bytes); the older days are final and kept.
            world.clock.advance(byMs: 86_400_000)
            let requestsBefore = world.simulator.statistics().salesReportRequests
            let again = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            let asked = world.simulator.statistics().salesReportRequests - requestsBefore
            let kept = again.days.filter { $0.outcome == .kept }.count
            #expect(kept > 0 && asked == window.days.count - kept)
            let replaced = again.days.filter {
                switch $0.outcome {
                case .stored(.replaced(changed: false), _), .noSales(.replaced(changed: false)): true
                default: false
                }
            }
            #expect(replaced.count == asked, "every day asked again was replaced by the same bytes")
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_rows") == rowsBefore)
            #expect(try await world.count("SELECT COUNT(*) FROM (SELECT day, line FROM apple_report_rows GROUP BY day, line HAVING COUNT(*) > 1)") == 0)
        }
    }

    @Test func aVersionApplesErrorNamesIsFollowedOnceAndKept() async throws {
        try await Self.world(SalesReportOptions(acceptedVersion: "1_1")).closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try Self.window(world, days: 5)
            let outcome = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            #expect(outcome.allAnswered)
            // One refused request, then every day with 1_1 (kept for the following days).
            #expect(world.simulator.statistics().salesReportRequests == window.days.count + 1)
            let versions = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT DISTINCT report_version FROM apple_report_days") { try $0.text("report_version") }
            }
            #expect(versions == ["1_1"])
        }
    }

    @Test func aDayNotPublishedYetIsSkippedNeverStoredAsZero() async throws {
        try await Self.world().closing { world in
            // 06:00 Pacific standard time: yesterday is published at 08:00, not yet.
            world.clock.set(nowMs: 1_795_356_000_000)  // 2026-11-22T14:00:00Z
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try AppleReportWindow.parse(since: nil, until: nil, nowMs: world.clock.nowMs)
            #expect(window.days.count == 7 && window.until.text == "2026-11-22")
            let outcome = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            #expect(outcome.days.last?.day.text == "2026-11-21")
            #expect(outcome.days.last?.outcome == .notYetAvailable)
            #expect(outcome.allAnswered)
            #expect(try await Self.storedDays(world).map(\.day.text).contains("2026-11-21") == false)
            #expect(AppleReportLines.text(.notYetAvailable).contains("not published yet"))
        }
    }

    @Test func a429IsWaitedOutAndAnEndless429StopsTheFetchKeepingWhatWasStored() async throws {
        try await Self.world().closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let waits = Waits()
            world.simulator.queueSalesReportFaults([.rateLimited(retryAfterSeconds: 7), .serverError])
            let window = try Self.window(world, days: 3)
            let outcome = try await AppleParityTests.fetcher(world, transport: transport, sleep: waits.sleep).fetch(window)
            #expect(outcome.allAnswered)
            #expect(waits.all.first == .seconds(7), "Retry-After honoured: \(waits.all)")
            #expect(try await Self.storedDays(world).count == 3)

            // Apple's limit stays reached: the fetch stops, the days before stay stored, exit 1.
            world.clock.advance(byMs: 10 * 86_400_000)
            world.simulator.queueSalesReportFaults([] + Array(repeating: .rateLimited(retryAfterSeconds: 3_600), count: 1))
            let later = try Self.window(world, days: 2)
            let stopped = try await AppleParityTests.fetcher(world, transport: transport, sleep: waits.sleep).fetch(later)
            #expect(!stopped.allAnswered)
            if case .rateLimited = stopped.stoppedBy {} else { Issue.record("stopped by \(String(describing: stopped.stoppedBy))") }
            #expect(stopped.days.isEmpty)
            #expect(try await Self.storedDays(world).count == 3)
        }
    }

    @Test func aFetchStopsWhenApplesHourlyQuotaIsUsedUp() async throws {
        try await Self.world(SalesReportOptions(hourlyLimit: 3)).closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try Self.window(world, days: 6)
            let outcome = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            #expect(outcome.days.count == 3, "three requests, then X-Rate-Limit said none is left")
            if case .rateLimited = outcome.stoppedBy {} else { Issue.record("stopped by \(String(describing: outcome.stoppedBy))") }
            #expect(world.simulator.statistics().salesReportRequests == 3, "no request drew a 429")
            #expect(try await Self.storedDays(world).count == 3)
        }
    }

    @Test func aBrokenReportIsNotStoredAndTheOtherDaysAre() async throws {
        try await Self.world().closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try Self.window(world, days: 3)
            world.simulator.queueSalesReportFaults([.truncatedGzip, .notGzip])
            let outcome = try await AppleParityTests.fetcher(world, transport: transport).fetch(window)
            #expect(!outcome.allAnswered)
            let failed = outcome.days.filter { if case .failed = $0.outcome { true } else { false } }
            #expect(failed.map(\.day) == Array(window.days.prefix(2)), "\(outcome.days)")
            #expect(try await Self.storedDays(world).map(\.day) == [window.days[2]])
        }
    }

    @Test func aWrongKeyOrVendorNumberStopsAtOnceWithAConfigurationErrorAndStoresNothing() async throws {
        try await Self.world().closing { world in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let window = try Self.window(world, days: 3)
            let cases: [(String, AppStoreConnectKey, String)] = [
                ("another key", AppStoreConnectKey(privateKey: P256.Signing.PrivateKey(), keyID: "OTHER", issuerID: "x"), "80012345"),
                ("another vendor", world.ascKey, "81234567"),
            ]
            for (name, key, vendor) in cases {
                let client = SalesReportClient(
                    baseURL: world.simulator.appStoreConnectBaseURL, vendorNumber: vendor,
                    tokens: BearerTokenProvider(teamKey: key, clock: { WallClock.unixMilliseconds() }), transport: transport,
                    logger: Logger(label: "test"), sleep: { _ in })
                let fetcher = AppleReportFetcher(
                    store: world.store, client: client, vendorNumber: vendor, clock: world.clock.millisecondsClock,
                    logger: Logger(label: "test"))
                do {
                    _ = try await fetcher.fetch(window)
                    Issue.record("\(name): no error")
                } catch let error as SalesReportFetchError {
                    #expect(error.isConfigurationError, "\(name): \(error)")
                    if name == "another vendor" { #expect(error.description.contains(vendor)) }
                    if name == "another key" { #expect(error.description.contains("team key")) }
                    #expect(!error.description.contains("BEGIN"))
                }
            }
            #expect(try await Self.storedDays(world).isEmpty)
        }
    }

    @Test func windowsThatCannotMeanAnythingAreRefused() throws {
        let now: Int64 = 1_795_329_964_000  // 2026-11-21 22:46 Pacific
        #expect(throws: AppleReportWindowError.future(until: CalendarDay(text: "2026-11-23")!, today: CalendarDay(text: "2026-11-21")!)) {
            try AppleReportWindow.parse(since: nil, until: "2026-11-23", nowMs: now)
        }
        #expect(throws: AppleReportWindowError.self) { try AppleReportWindow.parse(since: "2026-11-10", until: "2026-11-10", nowMs: now) }
        #expect(throws: AppleReportWindowError.self) { try AppleReportWindow.parse(since: "2026-13-01", until: nil, nowMs: now) }
        #expect(throws: AppleReportWindowError.self) { try AppleReportWindow.parse(since: "2024-01-01", until: nil, nowMs: now) }
        let standard = try AppleReportWindow.parse(since: nil, until: nil, nowMs: now)
        #expect(standard.since.text == "2026-11-14" && standard.until.text == "2026-11-21" && standard.days.count == 7)
    }
}
