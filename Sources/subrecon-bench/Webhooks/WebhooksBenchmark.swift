import Crypto
import Dispatch
import Foundation
import Logging
import SubRecon
import SubReconHTTP
import SubReconModel
import SubReconStore

/// Webhook delivery measured in this process: the outbox on one store, `WebhookDeliverer` with its
/// libcurl transport, and a loopback receiver. Three measurements, each on a fresh database:
/// throughput to a receiver answering at once, wall time against a receiver answering in 100 ms,
/// and the latency from commit to first attempt while events keep being committed.
struct WebhooksBenchmark {
    struct Configuration {
        var store: WebhookBenchStoreKind
        var concurrency: Int
        var insertBatch: Int
        var throughputEvents: Int
        var throughputSubscriptions: Int
        var slowEvents: Int
        var slowSubscriptions: Int
        var slowAnswerMs: Int
        var latencyRate: Int
        var latencySeconds: Double
        var latencySubscriptions: Int
        /// Leave the PostgreSQL databases in place (their names are printed).
        var keep = false
        /// `VACUUM ANALYZE` a filled PostgreSQL outbox before delivering, as autovacuum soon would.
        var analyze = true
        /// Delivered events in the outbox before the throughput run's are written (and analyzed).
        var history = 0
    }

    /// A filled outbox delivered until empty.
    struct Drain {
        var events: Int
        var subscriptions: Int
        var insertSeconds = 0.0
        var seconds = 0.0
        var cpuSeconds = 0.0
        /// PostgreSQL's processes for the database, while delivering.
        var serverCPUSeconds: Double?
        var delivered = 0
        var received = 0
        var pending: Int64 = 0
        /// VmRSS when delivery started, and VmHWM while it ran (reset at its start).
        var startKB: Int?
        var peakKB: Int?
        /// The deliverer's store calls.
        var store = MeteredEventStore.Totals()
        /// Events/s over each tenth of the events, as they arrived.
        var tenthRates: [Double] = []
        var eventsPerSecond: Double { seconds > 0 ? Double(delivered) / seconds : 0 }
    }

    struct Slow {
        var drain: Drain
        var answerMs: Int
        var idealSeconds: Double
        var ratio: Double { idealSeconds > 0 ? drain.seconds / idealSeconds : 0 }
    }

    struct Latency {
        var committed: Int
        var seconds: Double
        var received: Int
        /// What the deliverer threw when cancelled, if anything.
        var stopError: String? = nil
        /// Commit (after the transaction returned) to the receiver having the request, ms, sorted.
        var millis: [Double]
        func percentile(_ p: Double) -> Double {
            guard !millis.isEmpty else { return 0 }
            return millis[min(millis.count - 1, max(0, Int((p * Double(millis.count)).rounded(.up)) - 1))]
        }
    }

    let configuration: Configuration
    private let logger = Logger(label: "subrecon-bench.webhooks", factory: { _ in SwiftLogNoOpLogHandler() })

    static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The deliverer as `webhooks deliver` and `serve` make it: one endpoint, a fresh secret, the
    /// default schedule, timeout and idle poll.
    private func deliverer(_ handle: WebhookBenchHandle, receiver: LoopbackWebhookReceiver)
        -> (WebhookDeliverer, CurlTransport, MeteredEventStore)
    {
        let signer = WebhookSigner(secrets: [WebhookSecret(keyBytes: Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))])
        let target = WebhookTarget(url: receiver.url) { id, timestamp, body in
            signer.headers(eventID: id, timestampSeconds: timestamp, body: body)
        }
        let options = WebhookDeliveryOptions(
            everyApp: target, concurrency: configuration.concurrency, leaseMs: handle.leaseMs,
            userAgent: "subrecon-bench")
        let transport = CurlTransport(maxConnections: options.concurrency, maxResponseBytes: WebhookDeliverer.maxAnswerBytes)
        let store = MeteredEventStore(handle.store)
        return (
            WebhookDeliverer(store: store, transport: transport, options: options, clock: Self.nowMs, logger: logger),
            transport, store
        )
    }

    /// The receiver's rate over each tenth of `events` (events/s): whether delivery slows as the
    /// outbox's delivered rows pile up. Sampled every 20 ms; stops when cancelled.
    private static func tenths(of events: Int, arrivingAt receiver: LoopbackWebhookReceiver, since start: ContinuousClock.Instant)
        async -> [Double]
    {
        var rates: [Double] = []
        var last = (count: 0, seconds: 0.0)
        while rates.count < 10, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
            let count = receiver.requestCount
            let seconds = Self.seconds(since: start)
            while rates.count < 10, count >= events * (rates.count + 1) / 10 {
                let mark = events * (rates.count + 1) / 10
                rates.append(Double(mark - last.count) / max(seconds - last.seconds, 1e-3))
                last = (mark, seconds)
            }
        }
        return rates
    }

    /// Commits events `0..<count` in transactions of `insertBatch`; returns the seconds it took.
    private func insert(_ events: Range<Int>, subscriptions: Int, into handle: WebhookBenchHandle) async throws -> Double {
        let factory = BenchEventFactory(subscriptions: subscriptions)
        let started = ContinuousClock.now
        var next = events.lowerBound
        while next < events.upperBound {
            let end = min(events.upperBound, next + configuration.insertBatch)
            try await handle.write(factory.batch(next..<end, createdAtMs: Self.nowMs()))
            next = end
        }
        return Self.seconds(since: started)
    }

    /// Measurement a: `throughputEvents` pending, then delivered to a receiver answering at once.
    func throughput() async throws -> Drain {
        try await fillAndDrain(
            "throughput", events: configuration.throughputEvents, subscriptions: configuration.throughputSubscriptions,
            answerMs: 0)
    }

    /// Measurement b: `slowEvents` to a receiver answering each in `slowAnswerMs`.
    func slow() async throws -> Slow {
        let drain = try await fillAndDrain(
            "slow", events: configuration.slowEvents, subscriptions: configuration.slowSubscriptions,
            answerMs: configuration.slowAnswerMs)
        return Slow(
            drain: drain, answerMs: configuration.slowAnswerMs,
            idealSeconds: Double(configuration.slowEvents) * Double(configuration.slowAnswerMs) / 1000
                / Double(configuration.concurrency))
    }

    /// `events` committed, then delivered until none is pending (as `webhooks deliver` does).
    private func fillAndDrain(_ label: String, events: Int, subscriptions: Int, answerMs: Int) async throws -> Drain {
        let database = try await configuration.store.make(label)
        let handle = try await database.open()
        let receiver = try LoopbackWebhookReceiver(delayMs: answerMs)
        var result = Drain(events: events, subscriptions: subscriptions)
        do {
            let history = label == "throughput" ? configuration.history : 0
            if history > 0 {
                // A deployment's past: delivered events kept for retention, with fresh statistics.
                _ = try await insert(0..<history, subscriptions: subscriptions, into: handle)
                try await handle.markDelivered()
                if case .postgres(let server, let location) = database { try await server.vacuumAnalyze(location) }
            }
            result.insertSeconds = try await insert(history..<(history + events), subscriptions: subscriptions, into: handle)
            if configuration.analyze, case .postgres(let server, let location) = database {
                try await server.vacuumAnalyze(location)
            }
            let (deliverer, transport, meter) = deliverer(handle, receiver: receiver)
            let serverBefore = try await handle.serverCPU?()
            result.startKB = ProcessMemory.resetPeak()
            let cpu = ChildProcess.ownCPUSeconds()
            let started = ContinuousClock.now
            let tenths = Task { await Self.tenths(of: events, arrivingAt: receiver, since: started) }
            let summary: WebhookDeliverySummary
            do {
                summary = try await deliverer.run(until: .drained(deadlineMs: Self.nowMs() + 3_600_000))
            } catch {
                tenths.cancel()
                throw error
            }
            result.seconds = Self.seconds(since: started)
            result.cpuSeconds = ChildProcess.ownCPUSeconds() - cpu
            result.store = meter.snapshot
            tenths.cancel()
            result.tenthRates = await tenths.value
            if let serverBefore, let serverAfter = try await handle.serverCPU?() {
                result.serverCPUSeconds = serverAfter.reduce(0) { $0 + $1.value - (serverBefore[$1.key] ?? 0) }
            }
            result.peakKB = ProcessMemory.peakKilobytes()
            transport.shutdown()
            result.delivered = summary.delivered
            result.pending = summary.pending
            result.received = receiver.requestCount
        } catch {
            await finish(handle, database, receiver)
            throw error
        }
        await finish(handle, database, receiver)
        return result
    }

    /// Measurement c: a deliverer running continuously (as under `serve`) while a writer with
    /// connections of its own commits `latencyRate` events a second, one per transaction, for
    /// `latencySeconds`; each event's commit time against its first arrival at the receiver.
    func latency() async throws -> Latency {
        let database = try await configuration.store.make("latency")
        let writer = try await database.open()
        let delivering: WebhookBenchHandle
        do {
            delivering = try await database.open()
        } catch {
            await writer.close()
            try? await database.drop()
            throw error
        }
        let receiver = try LoopbackWebhookReceiver(recordsArrivals: true)
        let (deliverer, transport, _) = deliverer(delivering, receiver: receiver)
        let running = Task { try await deliverer.run(until: .cancelled) }
        let factory = BenchEventFactory(subscriptions: configuration.latencySubscriptions)
        let total = Int((Double(configuration.latencyRate) * configuration.latencySeconds).rounded())
        var commits: [String: UInt64] = [:]
        commits.reserveCapacity(total)
        var result = Latency(committed: 0, seconds: 0, received: 0, millis: [])
        do {
            let started = ContinuousClock.now
            for index in 0..<total {
                try await Task.sleep(until: started + .seconds(Double(index) / Double(configuration.latencyRate)), clock: .continuous)
                let batch = factory.batch(index..<(index + 1), createdAtMs: Self.nowMs())
                try await writer.write(batch)
                let committed = DispatchTime.now().uptimeNanoseconds
                for draft in batch.drafts { commits[draft.id] = committed }
            }
            result.seconds = Self.seconds(since: started)
            result.committed = total
            result.received = await receiver.waitForRequests(total, timeout: .seconds(30))
        } catch {
            running.cancel()
            _ = try? await running.value
            transport.shutdown()
            await writer.close()
            await finish(delivering, database, receiver)
            throw error
        }
        running.cancel()
        let stopped = await running.result
        if case .failure(let error) = stopped {
            // Everything was delivered and counted; what stopping said is shown, not fatal.
            result.stopError = "\(error)"
        }
        transport.shutdown()
        let arrivals = receiver.arrivals
        result.millis = commits.compactMap { id, committed in
            arrivals[id].map { (Double($0) - Double(committed)) / 1e6 }
        }.sorted()
        await writer.close()
        await finish(delivering, database, receiver)
        return result
    }

    private func finish(_ handle: WebhookBenchHandle, _ database: WebhookBenchDatabase, _ receiver: LoopbackWebhookReceiver) async {
        receiver.stop()
        await handle.close()
        if configuration.keep, case .postgres(_, let location) = database {
            print("  kept the PostgreSQL database \(location.database)")
        } else {
            try? await database.drop()
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
