import AppStoreSimulator
import AppleSignedData
import Foundation
import Logging
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `notifications backfill`: Apple's Get Notification History, page by page, over real HTTP to the
/// simulator, each notification verified and applied like a received one.
@Suite struct NotificationBackfillTests {
    static let day: Int64 = 86_400_000

    func backfill(_ world: TestWorld, key: AppStoreAPIKey? = nil, transport: CurlTransport) throws -> NotificationBackfill {
        NotificationBackfill(
            transport: transport,
            endpoints: ServerAPIEndpoints(
                production: world.simulator.serverAPIProductionBaseURL, sandbox: world.simulator.serverAPISandboxBaseURL),
            tokens: BearerTokenProvider(key: key ?? world.apiKey, clock: { WallClock.unixMilliseconds() }),
            limiter: APIRateLimiter(requestsPerSecond: 0), processor: try world.notificationProcessor(),
            retryPolicy: TestWorld.fastRetries, clockMs: world.clock.millisecondsClock, logger: Logger(label: "test"))
    }

    /// What the receiver missed is recovered, across pages; a second, overlapping backfill only
    /// counts deliveries.
    @Test(arguments: StoreKind.allCases) func missedNotificationsAreRecoveredPageByPageAndReplaysAreHarmless(store: StoreKind) async throws {
        try await TestWorld.make(store: store, notificationHistoryPageSize: 3).closing { world in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            try await world.importScenarios([.active, .billingRecovered, .upgraded, .refunded])
            _ = try await world.runServerAPI()
            let start = world.clock.nowMs
            world.clock.advance(byMs: 70 * Self.day)
            let subscribers = [SimulatedScenario.active, .billingRecovered, .upgraded, .refunded].enumerated().map {
                $0.element.subscriber(id: Int64($0.offset + 1), nowMs: start, paddingBytes: 200)
            }
            // Apple made these while the receiver was down: they are only in its history.
            let missed = world.simulator.notifications(for: subscribers, afterMs: start, throughMs: world.clock.nowMs)
            #expect(missed.count >= 7)

            let first = try await backfill(world, transport: transport).run(
                sinceMs: start, untilMs: world.clock.nowMs + 1, environment: .production)
            #expect(first.listed == missed.count)
            #expect(first.pages == (missed.count + 2) / 3)
            #expect(first.storedTotal == missed.count)
            #expect(first.alreadyStored == 0)
            #expect(first.stored[.applied, default: 0] > 0)
            let stored = Set(try await world.report(.notifications).compactMap { $0["notification_uuid"] })
            #expect(stored == Set(missed.map(\.notificationUUID)))
            #expect(world.simulator.statistics().notificationHistoryRequests == first.pages)

            // The subscriptions now say what a fresh check says.
            let afterBackfill = try await world.subscriptions()
            _ = try await world.runServerAPI(.all)
            let checked = try await world.subscriptions()
            #expect(afterBackfill.count == checked.count)
            for (a, b) in zip(afterBackfill, checked) { #expect(a.hasSameReportedState(as: b), "\(a.userID)") }

            let again = try await backfill(world, transport: transport).run(
                sinceMs: start - Self.day, untilMs: world.clock.nowMs + 1, environment: .production)
            #expect(again.storedTotal == 0)
            #expect(again.alreadyStored == missed.count)
            #expect(try await world.report(.notifications).allSatisfy { $0["deliveries"] == "2" })
        }
    }

    /// A key Apple refuses stops the backfill with the contract's configuration error; nothing is stored.
    @Test func aRefusedKeyIsAConfigurationError() async throws {
        try await TestWorld.make().closing { world in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            let subscriber = SimulatedScenario.active.subscriber(id: 1, nowMs: world.clock.nowMs, paddingBytes: 200)
            world.simulator.makeNotification(.didRenew, for: subscriber)
            let stranger = AppStoreAPIKey(
                privateKey: .init(), keyID: "OTHERKEY01", issuerID: world.apiKey.issuerID, bundleID: world.apiKey.bundleID)
            let refused = try backfill(world, key: stranger, transport: transport)
            do throws(NotificationBackfill.Failure) {
                _ = try await refused.run(
                    sinceMs: world.clock.nowMs - Self.day, untilMs: world.clock.nowMs + 1, environment: .production)
                Issue.record("a refused key went through")
            } catch {
                #expect(error.exitCode == 2)
                #expect(error.description.contains("401"))
            }
            #expect(try await world.count("SELECT COUNT(*) FROM notifications") == 0)
        }
    }

    /// `--since` beyond Apple's 180 days is moved up rather than refused by Apple.
    @Test func aSinceBeyondRetentionIsClamped() async throws {
        try await TestWorld.make().closing { world in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            let summary = try await backfill(world, transport: transport).run(
                sinceMs: world.clock.nowMs - 400 * Self.day, untilMs: world.clock.nowMs, environment: .production)
            #expect(summary.sinceMs == world.clock.nowMs - 179 * Self.day)
            #expect(summary.listed == 0)
            #expect(summary.pages == 1)
        }
    }
}
