import Foundation
import Logging
import Synchronization
import SubReconHTTP
import SubReconModel
import SubReconStore

/// Delivers pending events to their apps' endpoints, signed, in order per subscription, at least
/// once: claims the due heads (a lease per event, so several deliverers never send one event at the
/// same time), POSTs them with up to `concurrency` requests in flight, and records each attempt
/// with the next claim in one transaction. An event is settled only after its attempt ended; a
/// deliverer killed in between leaves a lease that expires, and the event is sent again, the
/// same id and the same bytes.
public struct WebhookDeliverer: Sendable {
    public let store: any EventStore
    public let transport: any HTTPTransport
    public let options: WebhookDeliveryOptions
    public let clock: @Sendable () -> Int64
    public let logger: Logger
    /// Why to stop early (SIGTERM, SIGINT), or nil: no new attempt starts, those in flight finish
    /// and are recorded.
    public let stopReason: @Sendable () -> String?

    public init(
        store: any EventStore, transport: any HTTPTransport, options: WebhookDeliveryOptions,
        clock: @escaping @Sendable () -> Int64, logger: Logger, stopReason: @escaping @Sendable () -> String? = { nil }
    ) {
        self.store = store
        self.transport = transport
        self.options = options
        self.clock = clock
        self.logger = logger
        self.stopReason = stopReason
    }

    /// Whether to start nothing more.
    private var stopping: Bool { Task.isCancelled || stopReason() != nil }

    /// A receiver's answer is read and thrown away; a larger one is a failed attempt.
    public static let maxAnswerBytes = 64 * 1024

    /// The events this deliverer serves.
    public var scope: EventDeliveryScope {
        EventDeliveryScope(
            apps: options.everyApp != nil ? nil : options.targets.keys.sorted(),
            firstDelayMs: options.scheduleSeconds[0] * 1000)
    }

    /// When to stop.
    public enum Until: Sendable {
        /// Nothing pending, or the next attempt falls after this time (ms): `webhooks deliver`.
        case drained(deadlineMs: Int64)
        /// Until the task is cancelled (`serve`).
        case cancelled
    }

    /// Delivers until `until`; returns what it did and how many events are still pending.
    public func run(until: Until) async throws(StoreError) -> WebhookDeliverySummary {
        var summary = WebhookDeliverySummary()
        guard options.hasEndpoints else { return summary }
        let token = UUID().uuidString.lowercased()
        let scope = scope
        let finishedCount = FinishedCounter()
        do {
            try await withThrowingTaskGroup(of: WebhookAttemptResult?.self) { group in
                var inFlight = 0
                var results: [WebhookAttemptResult] = []
                while true {
                    let free = stopping ? 0 : options.concurrency - inFlight
                    let settled = results
                    let claimed = try await recording { () async throws(StoreError) in
                        try await store.settleAndClaimEvents(
                            settled, token: token, scope: scope, nowMs: clock(), limit: free, leaseMs: options.leaseMs)
                    }
                    summary.count(results)
                    results = []
                    for event in claimed {
                        inFlight += 1
                        group.addTask {
                            let result = await attempt(event)
                            finishedCount.count.withLock { $0 += 1 }
                            return result
                        }
                    }
                    if inFlight > 0 {
                        // One finished attempt, then every other that has finished meanwhile:
                        // their results are recorded together, with the next claim.
                        guard let first = try await group.next() else { break }
                        var taken = [first]
                        let ready = finishedCount.count.withLock { count -> Int in
                            let ready = count - 1
                            count = 0
                            return ready
                        }
                        for _ in 0..<max(0, ready) {
                            guard let more = try await group.next() else { break }
                            taken.append(more)
                        }
                        inFlight -= taken.count
                        // An attempt cut short by cancellation is no attempt: its lease is given back below.
                        results = taken.compactMap { $0 }
                        continue
                    }
                    if stopping { break }
                    if !claimed.isEmpty { continue }
                    // Idle: wait for the next due attempt, or end.
                    let now = clock()
                    let due = try await recording { () async throws(StoreError) in try await store.nextEventDueAt(scope: scope) }
                    switch until {
                    case .drained(let deadline):
                        guard let due else { return }
                        if due > deadline { return }
                        // In slices, so that a stop request is seen within one.
                        let wait = max(20, min(due - now, deadline - now + 1))
                        try await Task.sleep(for: min(.milliseconds(wait), options.idlePoll))
                    case .cancelled:
                        let wait = due.map { Duration.milliseconds(max(20, $0 - now)) } ?? options.idlePoll
                        try await Task.sleep(for: min(wait, options.idlePoll))
                    }
                }
            }
        } catch is CancellationError {
            // Cancelled while idle: nothing in flight.
        } catch let error as StoreError {
            try? await recording { () async throws(StoreError) in try await store.releaseEventLeases(token: token) }
            throw error
        } catch {
            try? await recording { () async throws(StoreError) in try await store.releaseEventLeases(token: token) }
            throw StoreError.failed(operation: "delivering webhooks", reason: "\(error)")
        }
        // Events claimed but not attempted (a stop) are free for the next deliverer at once.
        if stopping { try await recording { () async throws(StoreError) in try await store.releaseEventLeases(token: token) } }
        summary.pending = try await recording { () async throws(StoreError) in try await store.pendingEventCount(scope: scope) }
        summary.stoppedBy = stopReason()
        return summary
    }

    /// A store call that must happen even when the task is cancelled (`serve` stopping): what was
    /// attempted is recorded and leases are given back, or the events would be sent again after
    /// their leases expire. Run from a task of its own, awaited, which cancellation does not reach.
    private func recording<T: Sendable>(_ body: @escaping @Sendable () async throws(StoreError) -> T) async throws(StoreError) -> T {
        guard Task.isCancelled else { return try await body() }
        let outcome = await Task.detached { () -> Result<T, StoreError> in
            do throws(StoreError) { return .success(try await body()) } catch { return .failure(error) }
        }.value
        return try outcome.get()
    }

    /// One attempt: POST the body as written, signed for this attempt's timestamp. Never throws:
    /// every way it can fail is a failed attempt; nil when cancellation cut it short (no attempt).
    func attempt(_ event: DeliverableEvent) async -> WebhookAttemptResult? {
        let started = clock()
        let attemptNumber = event.attempts + 1
        guard let target = options.target(for: event.app) else {
            // Its endpoint went away while it was claimed: leave it for a deliverer that has one.
            return WebhookAttemptResult(
                position: event.position, attemptedAtMs: started, status: nil,
                settlement: .retry(atMs: started + options.leaseMs))
        }
        let body = Array(event.body.utf8)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("User-Agent", options.userAgent),
        ]
        headers += target.signatureHeaders(event.eventID, started / 1000, body)
        var status: Int? = nil
        var problem: String? = nil
        do {
            let response = try await transport.send(
                HTTPRequest(url: target.url, method: "POST", headers: headers, body: body, timeout: options.timeout))
            status = response.status
            if !(200..<300).contains(response.status) { problem = "answered HTTP \(response.status)" }
        } catch {
            if Task.isCancelled { return nil }
            problem = error.description
        }
        let ended = clock()
        guard let problem else {
            return WebhookAttemptResult(position: event.position, attemptedAtMs: started, status: status, settlement: .delivered)
        }
        let next = options.retryTime(afterAttempt: attemptNumber, endedAtMs: ended)
        logger.info(
            "webhook attempt failed",
            metadata: [
                "event.id": "\(event.eventID)", "attempt": "\(attemptNumber)", "reason": "\(problem)",
                "next": "\(next.map { ISO8601.string(fromMilliseconds: $0) } ?? "none: the event is dead")",
            ])
        return WebhookAttemptResult(
            position: event.position, attemptedAtMs: started, status: status,
            settlement: next.map { .retry(atMs: $0) } ?? .dead)
    }
}

/// Attempts finished and not yet taken from the task group: what can be collected without waiting.
private final class FinishedCounter: Sendable {
    let count = Mutex(0)
}
