import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Logging
import Synchronization
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `SUBRECON_API_RATE` for all workers together: the `api_rate` schedule on PostgreSQL (real
/// database, real simulator over loopback), and SQLite's answer that its one process paces alone.
@Suite struct SharedRateBudgetTests {
    @Test(arguments: StoreKind.allCases) func bothStoresHaveTheRateTableAndCountTheSameSchemaVersion(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in

            // v6-api-rate on both: the same count of migrations, the same tables.
            #expect(PostgresSchema.migrations.map(\.identifier) == AppDatabase.migrator.migrations)
            #expect(PostgresSchema.migrations.map(\.identifier).contains("v6-api-rate"))
            #expect(try await world.store.schemaVersion() == PostgresSchema.migrations.count)
            #expect(try await world.count("SELECT COUNT(*) FROM api_rate") == 0)
            let reservation = try await world.store.reserveAPISlots(budget: "b", count: 4, intervalMicros: 25_000)
            // SQLite: one process, its budget is its own (nil: pace locally); PostgreSQL: shared slots.
            #expect((reservation == nil) == (store == .sqlite))
            #expect(try await world.count("SELECT COUNT(*) FROM api_rate") == (store == .sqlite ? 0 : 1))
        }
    }

    @Test func reservationsFollowOneAnotherAndAPausePushesThemPastIt() async throws {
        try await TestWorld.make(store: .postgres).closing { world in
            let store = world.store
            // Slots a second apart: the statements below take far less than the 20 s reserved at once.
            let first = try #require(try await store.reserveAPISlots(budget: "app", count: 20, intervalMicros: 1_000_000))
            let second = try #require(try await store.reserveAPISlots(budget: "app", count: 20, intervalMicros: 1_000_000))
            try await store.pauseAPISlots(budget: "app", forMicros: 1_000_000)
            let third = try #require(try await store.reserveAPISlots(budget: "app", count: 1, intervalMicros: 1_000_000))
            let elsewhere = try #require(try await store.reserveAPISlots(budget: "other app", count: 1, intervalMicros: 1_000))
            try await store.pauseAPISlots(budget: "paused app", forMicros: 60_000_000)
            let paused = try #require(try await store.reserveAPISlots(budget: "paused app", count: 1, intervalMicros: 1_000))

            // The first starts now (nothing was reserved), the second where the first ends, and a
            // pause shorter than what is reserved changes nothing; another budget is apart.
            #expect(first.firstSlotMicros == first.databaseNowMicros)
            #expect(first.endMicros == first.firstSlotMicros + 20_000_000)
            #expect(second.firstSlotMicros == first.endMicros)
            #expect(third.firstSlotMicros == second.endMicros)
            #expect(elsewhere.firstSlotDelayMicros == 0)
            // After a 429's pause, nobody's next slot comes before it.
            #expect(paused.firstSlotDelayMicros > 0 && paused.firstSlotDelayMicros <= 60_000_000)
        }
    }

    /// Three workers (three stores, as on three hosts) split one nightly run against a simulator that
    /// answers 429 above 25 requests/s, each worker told 20/s. Pacing alone they would send 60/s
    /// and meet 429s within the first second; sharing, their reserved slots never overlap.
    @Test func workersSharingOneDatabaseStayUnderTheRateTogether() async throws {
        try await TestWorld.make(apiRateLimit: 25, store: .postgres).closing { world in
            let postgres = try #require(world.postgres)
            let receipts = 40  // a status and a history call each: 80 requests, about 4 s at 20/s
            let rows = (0..<receipts).map { index in
                ImportRow(line: index + 2, userID: "u\(index)", receiptData: world.receipt(.active, id: Int64(index + 1)))
            }
            _ = try await world.store.importReceipts(rows, nowMs: world.clock.nowMs)
            let settings = try world.serverAPISettings(concurrency: 8, rate: 20)

            let recorded = Mutex<[String: [SlotReservation]]>([:])
            var workers: [(name: String, store: PostgresStore)] = []
            for index in 1...3 {
                workers.append(("worker-\(index)", try await postgres.open().asWorker("test-host:\(index)")))
            }
            let summaries = try await withThrowingTaskGroup(of: (String, RunSummary).self) { group in
                for (name, store) in workers {
                    var job = LiveWiring(
                        settings: settings, store: store, clock: world.clock.millisecondsClock, logger: Logger(label: name))
                    job.onAPISlotsReserved = { reservation in recorded.withLock { $0[name, default: []].append(reservation) } }
                    group.addTask {
                        // Small claims, so that every worker gets a share of only 40 receipts.
                        (name, try await job.run(.init(kind: .nightly, selection: .due, pageSize: 4)))
                    }
                }
                return try await group.reduce(into: [String: RunSummary]()) { $0[$1.0] = $1.1 }
            }
            for (_, store) in workers { await store.close() }

            // Every receipt verified once, by one worker, and every worker took part.
            #expect(summaries.values.map { $0.count(.updated) }.reduce(0, +) == receipts)
            #expect(try await world.count("SELECT COUNT(DISTINCT receipt_id) FROM run_items") == receipts)
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == receipts)
            let reservations = recorded.withLock { $0 }
            #expect(reservations.keys.sorted() == ["worker-1", "worker-2", "worker-3"])
            // The slots all workers reserved never overlap, on the database's one clock ...
            let all = reservations.values.flatMap { $0 }.sorted { $0.firstSlotMicros < $1.firstSlotMicros }
            let overlapping = zip(all, all.dropFirst()).filter { earlier, later in later.firstSlotMicros < earlier.endMicros }
            #expect(overlapping.isEmpty)
            #expect(all.allSatisfy { $0.count == 2 && $0.intervalMicros == 50_000 })
            // ... every request had one ...
            let requests = summaries.values.compactMap { $0.serverAPI?.requests }.reduce(0, +)
            #expect(requests == world.simulator.statistics().serverAPIRequests)
            #expect(requests >= 2 * receipts)
            #expect(all.count * 2 >= requests)
            // ... and Apple (the simulator) never had to say 429.
            #expect(world.simulator.statistics().serverAPIRateLimited == 0)
            #expect(summaries.values.allSatisfy { $0.serverAPI?.rateLimited == 0 })
        }
    }

    /// Two apps, each with its own budget (Apple's limit is per app), split by three workers on
    /// one database: each app's reserved slots never overlap and come exactly at its own rate, the
    /// two apps' slots run side by side (together above either budget), and the simulator, which
    /// answers 429 above each app's own limit, never has to.
    @Test func twoAppsEachKeepTheirOwnBudgetAcrossWorkers() async throws {
        let newsKey = P256.Signing.PrivateKey()
        try await TestWorld.make(
            apiRateLimit: 30, store: .postgres,
            otherApps: [
                SimulatedApp(bundleID: "com.example.news", appAppleID: 1_480_000_101, apiPublicKey: newsKey.publicKey, apiRateLimit: 25)
            ]).closing { world in
            let postgres = try #require(world.postgres)
            try await world.importActiveSubscribers(of: [SimulatedProducts.bundleID, "com.example.news"], perApp: 30)
            var settings = try world.serverAPISettings(concurrency: 8, rate: 25)
            settings.apps[0].bundleID = SimulatedProducts.bundleID
            var news = try #require(settings.serverAPI)
            news.key = AppStoreAPIKey(privateKey: newsKey, keyID: "NEWSKEY001", issuerID: news.key.issuerID, bundleID: "com.example.news")
            news.requestsPerSecond = 20
            settings.apps.append(
                AppSettings(bundleID: "com.example.news", appleAPI: .serverAPI, sharedSecret: nil, serverAPI: news, products: []))

            let recorded = Mutex<[SlotReservation]>([])
            var workers: [(name: String, store: PostgresStore)] = []
            for index in 1...3 {
                workers.append(("worker-\(index)", try await postgres.open().asWorker("test-host:\(index)")))
            }
            let summaries = try await withThrowingTaskGroup(of: RunSummary.self) { group in
                for (name, store) in workers {
                    var job = LiveWiring(
                        settings: settings, store: store, clock: world.clock.millisecondsClock, logger: Logger(label: name))
                    job.onAPISlotsReserved = { reservation in recorded.withLock { $0.append(reservation) } }
                    group.addTask { try await job.run(.init(kind: .nightly, selection: .due, pageSize: 4)) }
                }
                return try await group.reduce(into: [RunSummary]()) { $0.append($1) }
            }
            for (_, store) in workers { await store.close() }

            #expect(summaries.map { $0.count(.updated) }.reduce(0, +) == 60)
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == 60)
            // Each app's slots, told apart by their interval (25/s: 40 ms; 20/s: 50 ms), never overlap.
            let byBudget = Dictionary(grouping: recorded.withLock { $0 }, by: \.intervalMicros)
            #expect(Set(byBudget.keys) == [40_000, 50_000], "\(byBudget.keys)")
            for (_, slots) in byBudget {
                let sorted = slots.sorted { $0.firstSlotMicros < $1.firstSlotMicros }
                #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1.firstSlotMicros >= $0.endMicros })
            }
            // Side by side: the two budgets' reserved spans overlap in time.
            let spans = byBudget.mapValues { slots in
                (slots.map(\.firstSlotMicros).min() ?? 0, slots.map(\.endMicros).max() ?? 0)
            }
            if let a = spans[40_000], let b = spans[50_000] { #expect(a.0 < b.1 && b.0 < a.1, "the apps went one after the other") }
            let statistics = world.simulator.statistics()
            #expect(statistics.serverAPIRateLimited == 0)
            #expect((statistics.serverAPIRequestsByApp["com.example.news"] ?? 0) >= 60)
            #expect((statistics.serverAPIRequestsByApp[SimulatedProducts.bundleID] ?? 0) >= 60)
        }
    }
}
