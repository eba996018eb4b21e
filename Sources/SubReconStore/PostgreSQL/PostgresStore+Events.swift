import PostgresNIO
import SubReconModel

extension PostgresStore: EventStore {
    public func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        try await withTransaction("recording webhook attempts and claiming events") { connection in
            try await Self.settle(results, token: token, connection)
            guard limit > 0 else { return [] }
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
    }

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
