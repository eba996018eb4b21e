import PostgresNIO
import Synchronization
import SubReconModel

extension PostgresStore: EventStore {
    public func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        let started = ContinuousClock.now
        let claimed = try await withTransaction("recording webhook attempts and claiming events") { connection in
            try await Self.settle(results, token: token, connection)
            guard limit > 0 else { return [DeliverableEvent]() }
            try await connection.run(EventDeliverySQL.orderedClaimPlan)
            let arguments: [SQLArgument] =
                [.text(token), .integer(nowMs + leaseMs)] + scope.appArguments
                + [.integer(nowMs), .integer(nowMs - scope.firstDelayMs), .integer(nowMs), .integer(Int64(limit))]
            let claimed = try await connection.all(
                EventDeliverySQL.claim(apps: scope.apps?.count, forUpdate: true), arguments
            ) { row in
                DeliverableEvent(
                    position: try row["position"].decode(Int64.self), eventID: try row["event_id"].decode(String.self),
                    app: try row["bundle_id"].decode(String.self), body: try row["body"].decode(String.self),
                    attempts: Int(try row["attempts"].decode(Int64.self)))
            }
            return claimed.sorted { $0.position < $1.position }
        }
        if ContinuousClock.now - started > Self.slowClaim { await refreshEventStatistics() }
        return claimed
    }

    /// A round slower than this suggests a plan made on statistics from before a backlog.
    static let slowClaim = Duration.milliseconds(50)

    /// Planned on statistics from before a backlog (autovacuum re-analyzes a table only after a
    /// tenth of it changed), the claim's head check scanned every pending event for each candidate:
    /// 24 ms a claim at 5,000 pending after 50,000 delivered, growing with the square of the
    /// backlog. A slow round has the outbox analyzed, at most once a minute per process.
    private func refreshEventStatistics() async {
        let now = ContinuousClock.now
        let due = Self.lastEventAnalyze.withLock { last -> Bool in
            guard last.map({ now - $0 > .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        _ = try? await withConnection("analyzing the events table") { connection in
            try await connection.run(EventDeliverySQL.analyzeEvents)
        }
    }

    private static let lastEventAnalyze = Mutex<ContinuousClock.Instant?>(nil)

    private static func settle(_ results: [WebhookAttemptResult], token: String, _ connection: PostgresConnection) async throws {
        guard !results.isEmpty else { return }
        var rows = JSONRecords(["position", "state", "attempted_at", "status", "delivered_at", "next_attempt_at"])
        for result in results {
            let next: Int64? = if case .retry(let at) = result.settlement { at } else { nil }
            let deliveredAt: Int64? = result.settlement == .delivered ? result.attemptedAtMs : nil
            rows.append([
                .integer(result.position), .text(result.state), .integer(result.attemptedAtMs),
                SQLArgument(result.status.map(Int64.init)), SQLArgument(deliveredAt), SQLArgument(next),
            ])
        }
        try await connection.run(EventDeliverySQL.settleAll, [.text(rows.json), .text(token)])
    }

    public func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64? {
        try await withConnection("finding the next webhook attempt") { connection in
            try await connection.integer(
                EventDeliverySQL.nextDue(apps: scope.apps?.count), [.integer(scope.firstDelayMs)] + scope.appArguments)
        }
    }

    public func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64 {
        try await withConnection("counting pending events") { connection in
            try await connection.integer(EventDeliverySQL.pendingCount(apps: scope.apps?.count), scope.appArguments) ?? 0
        }
    }

    public func releaseEventLeases(token: String) async throws(StoreError) {
        try await withConnection("giving back event leases") { connection in
            try await connection.run(EventDeliverySQL.releaseLeases, [.text(token)])
        }
    }

    public func replayEvents(eventID: String?, sinceMs: Int64, untilMs: Int64, deadOnly: Bool, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await withConnection("replaying events") { connection in
            let selection: [SQLArgument] = eventID.map { [.text($0)] } ?? [.integer(sinceMs), .integer(untilMs)]
            return try await Self.count(
                EventDeliverySQL.replay(byID: eventID != nil, deadOnly: deadOnly), [.integer(nowMs)] + selection, connection)
        }
    }

    public func skipEvents(createdBefore beforeMs: Int64, apps: [String]?) async throws(StoreError) -> Int {
        try await withConnection("skipping events") { connection in
            try await Self.count(
                EventDeliverySQL.skip(apps: apps?.count), [.integer(beforeMs)] + (apps?.map(SQLArgument.text) ?? []),
                connection)
        }
    }

    public func removeSettledEvents(createdBefore beforeMs: Int64) async throws(StoreError) -> Int {
        try await withConnection("removing delivered events past retention") { connection in
            try await Self.count(EventDeliverySQL.removeSettled, [.integer(beforeMs)], connection)
        }
    }

    /// The rows a data-modifying statement touched.
    private static func count(_ sql: String, _ arguments: [SQLArgument], _ connection: PostgresConnection) async throws -> Int {
        Int(try await connection.integer("WITH touched AS (\(sql) RETURNING 1) SELECT COUNT(*) FROM touched", arguments) ?? 0)
    }
}
