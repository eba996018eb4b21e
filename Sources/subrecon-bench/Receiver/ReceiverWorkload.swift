import AppStoreSimulator
import AppleSignedData
import Foundation
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
@_spi(RawSQL) import SubReconStore

/// The receiver's real load, made before the timed phase: a fresh store with `subscribers`
/// active subscribers imported by transaction id (as a StoreKit 2 app would), the simulator's
/// root certificate in a file, and `count` distinct notifications signed by the simulator's chain
/// (DID_RENEW and DID_CHANGE_RENEWAL_STATUS in turn, spread over the subscribers, signedDates
/// increasing over the hour before now so the receiver's clock accepts them all). Every one
/// verifies and matches a stored receipt, so each request is a real verify and write. The store
/// also holds `history` earlier notifications (`ReceiverHistory`), as a receiver's does.
struct ReceiverWorkload {
    /// The bodies, in signedDate order.
    let bodies: [[UInt8]]
    /// SUBRECON_* settings the receiver needs for this store and this chain.
    let receiverEnvironment: [String: String]
    let store: DatabaseLocation

    /// What the store holds after the load.
    struct Recorded {
        /// Rows in `notifications`, by outcome.
        var outcomes: [String: Int] = [:]
        /// Sum of `deliveries` over all rows (each body is sent once: equal to `rows`).
        var deliveries = 0
        var rows: Int { outcomes.values.reduce(0, +) }
    }

    static func prepare(
        count: Int, subscribers: Int, history: Int, store: DatabaseLocation, folder: String
    ) async throws -> ReceiverWorkload {
        let watch = Stopwatch()
        let nowMs = SimulatedClock.wallNowMs()
        let simulator = AppStoreSimulator()
        let population = (0..<subscribers).map {
            SimulatedScenario.active.subscriber(id: Int64($0 + 1), nowMs: nowMs, paddingBytes: 200)
        }
        let bodies = await generate(count: count, population: population, simulator: simulator, nowMs: nowMs)
        let generated = watch.seconds

        // Each subscriber's receipt by its original transaction id (any notification about it names it).
        let firsts = (0..<subscribers).map { index in
            simulator.makeNotification(.didRenew, for: population[index], atMs: nowMs - 3_600_000 - 1_000)
        }
        simulator.removeAllNotifications()
        var logger = Logger(label: "subrecon-bench")
        logger.logLevel = .warning
        let opened = try await StoreOpener.open(store, environment: [:], logger: logger)
        do {
            var start = 0
            while start < subscribers {
                let end = min(subscribers, start + 1_000)
                let rows = (start..<end).map { index in
                    ImportRow(
                        line: index + 2, userID: "bench-user-\(index + 1)", receiptData: "",
                        transactionID: firsts[index].originalTransactionID.map(String.init))
                }
                _ = try await opened.importReceipts(rows, nowMs: nowMs)
                start = end
            }
            // Every subscriber's subscription and first period stored, as a running receiver's
            // store holds them: each first notification through the real processor, 32 at a time.
            let processor = NotificationProcessor(
                store: opened,
                settings: NotificationSettings(
                    bundleID: SimulatedProducts.bundleID,
                    verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM)),
                reconciler: ReceiptReconciler(duePolicy: .notified), clock: { SimulatedClock.wallNowMs() },
                logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, first) in firsts.enumerated() {
                    if index >= 32 { try await group.next() }
                    group.addTask {
                        guard case .stored = await processor.receive(body: first.bodyBytes, source: .import) else {
                            throw ReceiverBenchmark.Failure(description: "the first notification of subscriber \(index + 1) was not stored")
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
        try await ReceiverHistory.insert(count: history, into: store, nowMs: nowMs)

        let rootFile = folder + "/apple-root.pem"
        try simulator.rootCertificatePEM.write(toFile: rootFile, atomically: true, encoding: .utf8)
        var environment = [
            "SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID, "SUBRECON_APPLE_ROOT_CA_FILE": rootFile,
        ]
        switch store {
        case .sqlite(let path):
            environment["SUBRECON_DB"] = path
        case .postgres(let location):
            environment.merge(try BenchPostgres.processEnvironment(location, folder: folder)) { $1 }
        }
        let size = bodies.isEmpty ? 0 : bodies.map(\.count).reduce(0, +) / bodies.count
        print(BenchFormat.line(
            "generated", "\(BenchFormat.grouped(bodies.count)) signed notifications (~\(BenchFormat.grouped(size)) B each) in \(BenchFormat.fixed(generated, 1)) s, \(BenchFormat.grouped(subscribers)) subscribers imported with a first notification each, \(BenchFormat.grouped(history)) earlier notifications stored in \(BenchFormat.fixed(watch.seconds - generated, 1)) s (not timed)"))
        return ReceiverWorkload(bodies: bodies, receiverEnvironment: environment, store: store)
    }

    /// `count` notifications, signed on every core (three ECDSA signatures each).
    private static func generate(
        count: Int, population: [SimulatedSubscriber], simulator: AppStoreSimulator, nowMs: Int64
    ) async -> [[UInt8]] {
        // signedDates from an hour ago to a minute ago, strictly increasing while count ≤ 3,540,000.
        let firstMs = nowMs - 3_600_000
        let spanMs: Int64 = 3_540_000
        let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let chunk = 2_000
        return await withTaskGroup(of: (Int, [[UInt8]]).self) { group in
            var next = 0
            func add(_ start: Int) {
                group.addTask {
                    let end = min(count, start + chunk)
                    let made = (start..<end).map { index in
                        let subscriber = population[index % population.count]
                        let atMs = firstMs + Int64(index) * spanMs / Int64(max(count, 1))
                        let notification =
                            index % 2 == 0
                            ? simulator.makeNotification(.didRenew, for: subscriber, atMs: atMs, sendAttempt: nil)
                            : simulator.makeNotification(
                                .didChangeRenewalStatus, subtype: .autoRenewEnabled, for: subscriber, atMs: atMs,
                                sendAttempt: nil)
                        return notification.bodyBytes
                    }
                    // The simulator logs what it emits (for Get Notification History): not wanted here.
                    simulator.removeAllNotifications()
                    return (start, made)
                }
            }
            while next < count, next < lanes * chunk {
                add(next)
                next += chunk
            }
            var parts: [Int: [[UInt8]]] = [:]
            for await (start, made) in group {
                parts[start] = made
                if next < count {
                    add(next)
                    next += chunk
                }
            }
            return parts.keys.sorted().flatMap { parts[$0]! }
        }
    }

    /// The rows the load stored in `notifications` (source `receiver`: the history and the first
    /// notifications stored before it are `backfill` and `import`), by outcome, and their deliveries.
    func recorded() async throws -> Recorded {
        var logger = Logger(label: "subrecon-bench")
        logger.logLevel = .warning
        let opened = try await StoreOpener.open(store, environment: [:], logger: logger)
        do {
            let recorded = try await opened.withReadSnapshot { db in
                var recorded = Recorded()
                try await db.forEachRow(
                    BenchmarkSQL.receiverOutcomes, []
                ) { row in
                    recorded.outcomes[try row.text("outcome") ?? "?"] = Int(try row.integer("n") ?? 0)
                    recorded.deliveries += Int(try row.integer("deliveries") ?? 0)
                }
                return recorded
            }
            await opened.close()
            return recorded
        } catch {
            await opened.close()
            throw error
        }
    }
}
