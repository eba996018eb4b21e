import GRDB
import SubReconModel

extension AppDatabase: LedgerRefillStore {
    public func startLedgerRefill(nowMs: Int64) async throws(StoreError) -> LedgerRefillStart {
        try await write("starting the ledger refill") { db in
            if let row = try Row.fetchOne(db, sql: SchemaSQL.ledgerRefillUnfinished) {
                return LedgerRefillStart(resumed: true, receiptsMarked: row["receipts_marked"])
            }
            try db.execute(sql: SchemaSQL.ledgerRefillMark)
            let marked = db.changesCount
            try db.execute(sql: SchemaSQL.ledgerRefillInsert, arguments: [nowMs, marked])
            return LedgerRefillStart(resumed: false, receiptsMarked: marked)
        }
    }

    public func finishLedgerRefill(nowMs: Int64) async throws(StoreError) {
        try await write("finishing the ledger refill") { db in try db.execute(sql: SchemaSQL.ledgerRefillFinish, arguments: [nowMs]) }
    }
}
