import PostgresNIO
import SubReconModel

extension PostgresStore: LedgerRefillStore {
    /// Workers starting `run --refill-ledger` at once take turns on a transaction-level lock: the
    /// first marks the receipts, the others find the refill under way and join it.
    public func startLedgerRefill(nowMs: Int64) async throws(StoreError) -> LedgerRefillStart {
        try await withTransaction("starting the ledger refill") { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(?)", [.integer(Self.ledgerRefillLockKey)])
            for try await row in try await connection.run(SchemaSQL.ledgerRefillUnfinished) {
                let marked = try row.makeRandomAccess()[1].decode(Int64.self)
                return LedgerRefillStart(resumed: true, receiptsMarked: Int(marked))
            }
            let marked =
                try await connection.integer(
                    "WITH marked AS (\(SchemaSQL.ledgerRefillMark) RETURNING 1) SELECT COUNT(*) FROM marked") ?? 0
            try await connection.run(SchemaSQL.ledgerRefillInsert, [.integer(nowMs), .integer(marked)])
            return LedgerRefillStart(resumed: false, receiptsMarked: Int(marked))
        }
    }

    public func finishLedgerRefill(nowMs: Int64) async throws(StoreError) {
        try await withConnection("finishing the ledger refill") { connection in
            try await connection.run(SchemaSQL.ledgerRefillFinish, [.integer(nowMs)])
        }
    }

    /// The schema lock's key plus one ("subrecon" in ASCII, then 1).
    package static let ledgerRefillLockKey: Int64 = PostgresSchema.lockKey + 1
}
