import GRDB
import SubReconModel

extension AppDatabase: EventStore {
    public func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        try await write("recording webhook attempts and claiming events") { db in
            try Self.settle(results, token: token, db: db)
            guard limit > 0 else { return [] }
            let arguments: [SQLArgument] =
                [.text(token), .integer(nowMs + leaseMs)] + scope.appArguments
                + [.integer(nowMs), .integer(nowMs - scope.firstDelayMs), .integer(nowMs), .integer(Int64(limit))]
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: EventDeliverySQL.claim(apps: scope.apps?.count, forUpdate: false)),
                arguments: StatementArguments(arguments.map(\.databaseValue)))
            // RETURNING gives no order: deliver in position order.
            return rows.map { row in
                DeliverableEvent(
                    position: row["position"], eventID: row["event_id"], app: row["bundle_id"], body: row["body"],
                    attempts: row["attempts"])
            }.sorted { $0.position < $1.position }
        }
    }

    private static func settle(_ results: [WebhookAttemptResult], token: String, db: Database) throws {
        guard !results.isEmpty else { return }
        let settle = try db.cachedStatement(sql: EventDeliverySQL.settle)
        var delivered: Int64 = 0
        var failed: Int64 = 0
        for result in results {
            let next: Int64? = if case .retry(let at) = result.settlement { at } else { nil }
            let deliveredAt: Int64? = result.settlement == .delivered ? result.attemptedAtMs : nil
            let status: Int64? = result.status.map { Int64($0) }
            try settle.execute(arguments: [
                result.state, result.attemptedAtMs, status, deliveredAt, next, result.position, token,
            ])
            // Counted when recorded: a result whose lease went to another deliverer is not.
            guard db.changesCount > 0 else { continue }
            if result.settlement == .delivered { delivered += 1 } else { failed += 1 }
        }
        let count = try db.cachedStatement(sql: EventDeliverySQL.countAttempts)
        if delivered > 0 { try count.execute(arguments: ["delivered", delivered]) }
        if failed > 0 { try count.execute(arguments: ["failed", failed]) }
    }

    public func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64? {
        try await read("finding the next webhook attempt") { db in
            try Int64.fetchOne(
                db, sql: EventDeliverySQL.nextDue(apps: scope.apps?.count),
                arguments: StatementArguments(([.integer(scope.firstDelayMs)] + scope.appArguments).map(\.databaseValue)))
        }
    }

    public func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64 {
        try await read("counting pending events") { db in
            try Int64.fetchOne(
                db, sql: EventDeliverySQL.pendingCount(apps: scope.apps?.count),
                arguments: StatementArguments(scope.appArguments.map(\.databaseValue))) ?? 0
        }
    }

    public func releaseEventLeases(token: String) async throws(StoreError) {
        try await write("giving back event leases") { db in
            try db.execute(sql: EventDeliverySQL.releaseLeases, arguments: [token])
        }
    }

    public func replayEvents(eventID: String?, sinceMs: Int64, untilMs: Int64, deadOnly: Bool, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await write("replaying events") { db in
            let selection: [DatabaseValueConvertible] = eventID.map { [$0] } ?? [sinceMs, untilMs]
            try db.execute(
                sql: EventDeliverySQL.replay(byID: eventID != nil, deadOnly: deadOnly),
                arguments: StatementArguments([nowMs] + selection))
            return db.changesCount
        }
    }

    public func skipEvents(createdBefore beforeMs: Int64, apps: [String]?) async throws(StoreError) -> Int {
        try await write("skipping events") { db in
            try db.execute(
                sql: EventDeliverySQL.skip(apps: apps?.count),
                arguments: StatementArguments(([.integer(beforeMs)] + (apps?.map(SQLArgument.text) ?? [])).map(\.databaseValue)))
            return db.changesCount
        }
    }

    public func removeSettledEvents(createdBefore beforeMs: Int64) async throws(StoreError) -> Int {
        try await write("removing delivered events past retention") { db in
            try db.execute(sql: EventDeliverySQL.removeSettled, arguments: [beforeMs])
            return db.changesCount
        }
    }
}
