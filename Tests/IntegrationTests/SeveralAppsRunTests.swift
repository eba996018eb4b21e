import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Logging
import Testing

@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// Several apps in one deployment: each receipt names its app, each app is asked with its own
/// credentials, the apps' receipts go side by side, and an app Apple refuses stops only that app.
@Suite struct SeveralAppsRunTests {
    static let news = "com.example.news"
    static let cooking = "com.example.cooking"

    /// Imports `perApp` users for each app, every receipt of the first app before any of the
    /// second's (so a run walking the receipts in order would do one app after the other).
    @discardableResult
    func importTwoApps(_ world: TestWorld, perApp: Int) async throws -> ImportSummary {
        var rows: [ImportRow] = []
        for (appIndex, app) in [Self.news, Self.cooking].enumerated() {
            for index in 0..<perApp {
                let id = Int64(appIndex * perApp + index + 1)
                rows.append(
                    ImportRow(
                        line: rows.count + 2, userID: "\(app)-user-\(index)",
                        receiptData: world.receipt(.active, id: id), bundleID: app))
            }
        }
        return try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
    }

    func settings(_ world: TestWorld, newsSecret: String, cookingSecret: String, concurrency: Int) -> Settings {
        var settings = world.settings(concurrency: concurrency)
        settings.apps = [
            AppSettings(
                bundleID: Self.news, appleAPI: .verifyReceipt, sharedSecret: SharedSecret(newsSecret), serverAPI: nil,
                products: []),
            AppSettings(
                bundleID: Self.cooking, appleAPI: .verifyReceipt, sharedSecret: SharedSecret(cookingSecret),
                serverAPI: nil, products: []),
        ]
        return settings
    }

    /// Sees which app each written receipt belonged to, in the order they were written.
    final class WrittenOrder: RunObserver, @unchecked Sendable {
        let lock = NSLock()
        var users: [String] = []
        func runStarted(receiptsTotal: Int, runID: Int64?) {}
        func receiptFinished(_ update: ReceiptUpdate) {
            lock.withLock { users.append(update.userID) }
        }
        func runFinished(_ summary: RunSummary) {}
    }

    @Test(arguments: StoreKind.allCases) func theAppsGoSideBySideEachWithItsOwnCredentials(store: StoreKind) async throws {
        try await TestWorld.make(latency: .milliseconds(20), store: store).closing { world in
            try await importTwoApps(world, perApp: 12)
            let order = WrittenOrder()
            let job = LiveWiring(
                settings: settings(world, newsSecret: TestWorld.secret, cookingSecret: TestWorld.secret, concurrency: 4),
                store: world.store, clock: world.clock.millisecondsClock, logger: Logger(label: "test"))

            let summary = try await job.run(.init(kind: .nightly, selection: .due), observers: [order])

            #expect(summary.exitCode == 0)
            #expect(summary.receiptsTotal == 24)
            #expect(summary.count(.updated) == 24)
            #expect(summary.stoppedApps.isEmpty)
            // Side by side: the first third of the writes already has both apps' receipts, though
            // every receipt of the first app is due before any of the second's.
            let firstThird = order.users.prefix(8)
            #expect(firstThird.contains { $0.hasPrefix(Self.news) })
            #expect(firstThird.contains { $0.hasPrefix(Self.cooking) })
            let subscriptions = try await world.subscriptions()
            #expect(subscriptions.count == 24)
            #expect(subscriptions.allSatisfy { $0.status == .active })

            // The money reports per app: rows by period, then app; `--app` keeps that app's rows.
            for kind in [ReportKind.revenue, .metrics] {
                let all = try await report(world, kind, apps: [])
                #expect(Set(all.compactMap { $0["bundle_id"] }) == [Self.news, Self.cooking], "\(kind)")
                let keys = all.map { [$0["period"] ?? "", $0["bundle_id"] ?? ""] }
                #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) }, "\(kind): rows by period, then app")
                let cooking = try await report(world, kind, apps: [Self.cooking])
                #expect(!cooking.isEmpty && cooking == all.filter { $0["bundle_id"] == Self.cooking }, "\(kind)")
            }
        }
    }

    /// Every report made of rows about users takes `--app`: changes, expiring, unrecorded and
    /// shared as well as the ones with a bundle_id column, each keeping exactly that app's rows.
    @Test(arguments: StoreKind.allCases) func everyReportOfUsersRowsNarrowsToTheAppNamed(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await importTwoApps(world, perApp: 3)
            // One subscription of each app claimed by a second user too (a shared Apple ID).
            var shared: [ImportRow] = []
            for (appIndex, bundleID) in [Self.news, Self.cooking].enumerated() {
                shared.append(ImportRow(
                    line: 2 + appIndex, userID: bundleID + "-user-shared",
                    receiptData: world.receipt(.active, id: Int64(appIndex * 3 + 1)), bundleID: bundleID))
            }
            _ = try await world.store.importReceipts(shared, nowMs: world.clock.nowMs)
            let job = LiveWiring(
                settings: settings(world, newsSecret: TestWorld.secret, cookingSecret: TestWorld.secret, concurrency: 4),
                store: world.store, clock: world.clock.millisecondsClock, logger: Logger(label: "test"))
            #expect(try await job.run(.init(kind: .nightly, selection: .due)).exitCode == 0)

            for kind in [ReportKind.changes, .expiring, .unrecorded, .shared, .subscriptions, .renewals, .runItems] {
                let all = try await report(world, kind, apps: [], within: "400d")
                let users = Set(all.compactMap { $0["user_id"] })
                #expect(users.contains { $0.hasPrefix(Self.news) } && users.contains { $0.hasPrefix(Self.cooking) }, "\(kind): \(users)")
                let cooking = try await report(world, kind, apps: [Self.cooking], within: "400d")
                #expect(!cooking.isEmpty, "\(kind)")
                #expect(cooking == all.filter { $0["user_id"]?.hasPrefix(Self.cooking) == true }, "\(kind)")
            }

            // A month on, each renewal Apple billed after the import is a lost order a run found.
            world.clock.advance(byMs: 31 * DuePolicy.day)
            #expect(try await job.run(.init(kind: .nightly, selection: .all)).exitCode == 0)

            // The dashboard's figures for one app: its subscriptions by status, its paid
            // subscriptions now (the shared one counted once), its lost orders.
            func dashboard(_ apps: [String]) async throws -> DashboardData {
                var options = try ReportOptions.parse(
                    kind: .dashboard, runID: nil, since: nil, until: nil, within: nil, nowMs: world.clock.nowMs)
                options.apps = apps
                return try await world.store.withReadSnapshot { db in
                    try await DashboardReader.data(db, options: options, databaseLabel: "test")
                }
            }
            let whole = try await dashboard([])
            let cooking = try await dashboard([Self.cooking])
            #expect(whole.statusCounts.map(\.count).reduce(0, +) == 8)
            #expect(cooking.statusCounts.map(\.count).reduce(0, +) == 4)
            #expect(cooking.apps == [Self.cooking] && whole.apps.isEmpty)
            #expect(whole.metrics.last?.activePaid == 6)
            #expect(cooking.metrics.last?.activePaid == 3)
            let cookingLost: Int = cooking.lostOrdersPerRun.map(\.count).reduce(0, +)
            let wholeLost: Int = whole.lostOrdersPerRun.map(\.count).reduce(0, +)
            #expect(cookingLost > 0 && cookingLost * 2 == wholeLost, "\(cookingLost) of \(wholeLost)")
            #expect(cooking.runs == whole.runs, "a run spans every app")
        }
    }

    func report(_ world: TestWorld, _ kind: ReportKind, apps: [String], within: String? = nil) async throws -> [[String: String]] {
        var options = try ReportOptions.parse(
            kind: kind, runID: nil, since: kind.takesTimeWindow || kind.takesMoneyOptions ? "2024-01-01" : nil, until: nil,
            within: kind.takesWithin ? within : nil, nowMs: world.clock.nowMs)
        options.apps = apps
        // Every period a run found (`--all`): right after the import none is a lost order yet.
        if kind == .unrecorded { options.everyFoundPeriod = true }
        let box = DataBox()
        try await ReportExporter(store: world.store).export(kind, options: options) { box.append($0) }
        return CSVTable.parse(box.text)
    }

    @Test(arguments: StoreKind.allCases) func anAppAppleRefusesStopsOnlyThatApp(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await importTwoApps(world, perApp: 6)
            let job = LiveWiring(
                settings: settings(world, newsSecret: TestWorld.secret, cookingSecret: "a-wrong-secret", concurrency: 4),
                store: world.store, clock: world.clock.millisecondsClock, logger: Logger(label: "test"))

            let summary = try await job.run(.init(kind: .nightly, selection: .due))

            // 21004 for the cooking app: its work stops, changes nothing, and the run says so with exit 2.
            #expect(summary.exitCode == 2)
            #expect(summary.stoppedApps == [Self.cooking])
            #expect(summary.status == .completed)
            #expect(summary.line.contains("stopped for \(Self.cooking): Apple answered 21004"))
            #expect(summary.count(.updated) == 6)
            let subscriptions = try await world.subscriptions()
            #expect(subscriptions.map(\.userID).allSatisfy { $0.hasPrefix(Self.news) })
            #expect(subscriptions.count == 6)
            let cookingStates = try await world.store.withReadSnapshot { db in
                try await db.all(
                    "SELECT verification_state, next_due_at FROM receipts WHERE bundle_id = 'com.example.cooking'"
                ) { row in (try row.requiredText("verification_state"), try row.requiredInteger("next_due_at")) }
            }
            #expect(cookingStates.count == 6)
            #expect(cookingStates.allSatisfy { $0.0 == "pending" && $0.1 == 0 }, "the refused app's receipts stay as they were, due")
        }
    }

    @Test(arguments: StoreKind.allCases) func appRestrictsTheRunAndReceiptsWithoutAnAppAreLeftAlone(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await importTwoApps(world, perApp: 3)
            // A receipt stored before the deployment had several apps.
            try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "old-user", receiptData: world.receipt(.active, id: 99))], nowMs: world.clock.nowMs)
            var settings = settings(world, newsSecret: TestWorld.secret, cookingSecret: TestWorld.secret, concurrency: 4)
            settings.appFilter = [Self.cooking]
            let job = LiveWiring(
                settings: settings, store: world.store, clock: world.clock.millisecondsClock, logger: Logger(label: "test"))

            let summary = try await job.run(.init(kind: .nightly, selection: .due))

            #expect(summary.exitCode == 0)
            #expect(summary.receiptsTotal == 3)
            let users = Set(try await world.subscriptions().map(\.userID))
            #expect(users == Set((0..<3).map { "\(Self.cooking)-user-\($0)" }))
            #expect(try await world.store.countReceiptsWithoutApp() == 1)

            // Importing that receipt again with its app names it; nothing new is stored.
            let again = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "old-user", receiptData: world.receipt(.active, id: 99), bundleID: Self.news)],
                nowMs: world.clock.nowMs)
            #expect(again.imported == 0)
            #expect(again.alreadyStored == 1)
            #expect(again.appNamed == 1)
            #expect(try await world.store.countReceiptsWithoutApp() == 0)
        }
    }

    /// Three apps through the Server API, each with its own In-App Purchase key; the third app's
    /// key is not the one Apple has (401): that app's work stops, the other two complete.
    @Test(arguments: StoreKind.allCases) func threeAppsAndOneAppsKeyRefused(store: StoreKind) async throws {
        let newsKey = P256.Signing.PrivateKey()
        let gamesKey = P256.Signing.PrivateKey()
        try await TestWorld.make(
            store: store,
            otherApps: [
                SimulatedApp(bundleID: Self.news, appAppleID: 1_480_000_101, apiPublicKey: newsKey.publicKey),
                SimulatedApp(bundleID: "com.example.games", appAppleID: 1_480_000_102, apiPublicKey: gamesKey.publicKey),
            ]).closing { world in
            try await world.importActiveSubscribers(of: [SimulatedProducts.bundleID, Self.news, "com.example.games"], perApp: 4)
            var settings = try world.serverAPISettings()
            func app(_ bundleID: String, _ key: P256.Signing.PrivateKey) throws -> AppSettings {
                var serverAPI = try #require(settings.serverAPI)
                serverAPI.key = AppStoreAPIKey(privateKey: key, keyID: "KEY-\(bundleID)", issuerID: serverAPI.key.issuerID, bundleID: bundleID)
                return AppSettings(bundleID: bundleID, appleAPI: .serverAPI, sharedSecret: nil, serverAPI: serverAPI, products: [])
            }
            // The games app's key is not the one Apple holds for it.
            settings.apps = [
                settings.apps[0], try app(Self.news, newsKey), try app("com.example.games", P256.Signing.PrivateKey()),
            ]
            settings.apps[0].bundleID = SimulatedProducts.bundleID
            let job = LiveWiring(
                settings: settings, store: world.store, clock: world.clock.millisecondsClock, logger: Logger(label: "test"))

            let summary = try await job.run(.init(kind: .nightly, selection: .due))

            #expect(summary.exitCode == 2)
            #expect(summary.stoppedApps == ["com.example.games"])
            #expect(summary.count(.updated) == 8, "\(summary.line)")
            let users = try await world.subscriptions().map(\.userID)
            #expect(users.count == 8)
            #expect(users.allSatisfy { !$0.hasPrefix("com.example.games") })
            let statistics = world.simulator.statistics()
            #expect((statistics.serverAPIRequestsByApp[Self.news] ?? 0) > 0)
            #expect((statistics.serverAPIRequestsByApp[SimulatedProducts.bundleID] ?? 0) > 0)
        }
    }

    /// `parity` with several apps: each app's receipts compared through both APIs with that app's
    /// own secret and key; nothing written.
    @Test func parityComparesEachAppWithItsOwnCredentials() async throws {
        let newsKey = P256.Signing.PrivateKey()
        try await TestWorld.make(
            otherApps: [
                SimulatedApp(
                    bundleID: Self.news, appAppleID: 1_480_000_101, sharedSecret: "news-secret", apiPublicKey: newsKey.publicKey)
            ]).closing { world in
            try await world.importActiveSubscribers(of: [SimulatedProducts.bundleID, Self.news], perApp: 3)
            var settings = try world.serverAPISettings()
            settings.apps[0].bundleID = SimulatedProducts.bundleID
            settings.apps[0].sharedSecret = SharedSecret(TestWorld.secret)
            var news = try #require(settings.serverAPI)
            news.key = AppStoreAPIKey(privateKey: newsKey, keyID: "NEWSKEY001", issuerID: news.key.issuerID, bundleID: Self.news)
            settings.apps.append(
                AppSettings(
                    bundleID: Self.news, appleAPI: .serverAPI, sharedSecret: SharedSecret("news-secret"), serverAPI: news,
                    products: []))
            let job = LiveWiring(settings: settings, store: world.store, clock: world.clock.millisecondsClock, logger: .init(label: "t"))

            let result = try await job.parity(limit: nil)

            #expect(result.receiptsCompared == 6)
            #expect(result.subscriptionsCompared == 6)
            #expect(result.differences == [])
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect((world.simulator.statistics().serverAPIRequestsByApp[Self.news] ?? 0) > 0)
        }
    }
}
