import GRDB
import GRDBSQLite
import SubReconModel

extension AppDatabase: SnapshotStore {
    /// Every query of `body` reads one WAL snapshot: a run writing meanwhile is invisible to it.
    public func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        guard let pool = writer as? DatabasePool else { return try await body(SQLiteSnapshot(reader: writer)) }
        let snapshot: DatabaseSnapshot
        do { snapshot = try pool.makeSnapshot() } catch { throw Self.wrap(error, "opening a read snapshot") }
        return try await body(SQLiteSnapshot(reader: snapshot))
    }
}

/// `SnapshotQuerying` over a GRDB reader (a snapshot: every read sees the same data).
package struct SQLiteSnapshot: SnapshotQuerying {
    package let reader: any DatabaseReader

    package func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws {
        // A synchronous read: reports and copies are one command's only work. `body` runs on this
        // thread before `read` returns, so handing it over unchecked is safe. Rows are read through
        // SQLite's C API (`DirectStatement`): GRDB's Row decoding was a large share of a money
        // report's CPU over a large ledger (docs/performance.md, "Money reports over a large ledger").
        try withoutActuallyEscaping(body) { body in
            let handler = UncheckedRowHandler(body: body)
            try reader.read { db in
                let statement = try DirectStatement(db, sql: sql)
                defer { statement.reset() }
                try statement.bind(values: arguments)
                let row = SQLiteQueryRow(statement: statement, columns: statement.columnIndexes())
                while try statement.step() { try handler.body(row) }
            }
        }
    }
}

extension SQLiteSnapshot {
    package func forEachLedgerRow(
        environment: String, withParityColumns: Bool, _ body: (String, LedgerEntry) throws -> Void
    ) async throws {
        try withoutActuallyEscaping(body) { body in
            let handler = UncheckedLedgerHandler(body: body)
            try reader.read { db in
                let row = try DirectStatement(
                    db, sql: withParityColumns ? SchemaSQL.ledgerWalkWithParityColumns : SchemaSQL.ledgerWalk)
                defer { row.reset() }
                try row.bind(values: [.text(environment)])
                while try row.step() {
                    try handler.body(
                        row.text(1),
                        LedgerEntry(
                            originalTransactionID: row.text(0), productID: row.text(2), purchaseDateMs: row.optionalInt64(3),
                            expiresDateMs: row.int64(4), cancellationDateMs: row.optionalInt64(5), isUpgraded: row.bool(6),
                            priceMilliunits: row.optionalInt64(7), currency: row.optionalText(8),
                            offerDiscountType: row.optionalText(9), transactionReason: row.optionalText(10),
                            ownershipType: row.optionalText(11), environment: row.optionalText(12),
                            refundMilliunits: row.optionalInt64(13),
                            storefront: withParityColumns ? row.optionalText(14) : nil,
                            revocationType: withParityColumns ? row.optionalText(15) : nil))
                }
            }
        }
    }
}

private struct UncheckedLedgerHandler: @unchecked Sendable {
    let body: (String, LedgerEntry) throws -> Void
}

private struct UncheckedRowHandler: @unchecked Sendable {
    let body: (any QueryRow) throws -> Void
}

/// The current row of a `DirectStatement`, by column name or position. Valid until the next step.
package struct SQLiteQueryRow: QueryRow {
    package let statement: DirectStatement
    /// Column name → position, made once per statement (SQLite's names, as the SELECT spells them).
    package let columns: [String: Int32]

    private func position(_ column: String) throws -> Int32 {
        if let index = columns[column] { return index }
        // Names compare without case in SQL; ours are lowercase, so this is the rare path.
        if let index = columns.first(where: { $0.key.lowercased() == column.lowercased() })?.value { return index }
        throw StoreError.failed(operation: "reading a row", reason: "no column \(column)")
    }

    package func text(_ column: String) throws -> String? { try text(position(column), name: column) }
    package func integer(_ column: String) throws -> Int64? { try integer(position(column), name: column) }

    private func text(_ index: Int32, name: String) throws -> String? {
        switch statement.columnType(index) {
        case SQLITE_NULL: nil
        case SQLITE_INTEGER: String(statement.int64(index))
        case SQLITE_FLOAT: String(statement.double(index))
        default: statement.optionalText(index)
        }
    }

    private func integer(_ index: Int32, name: String) throws -> Int64? {
        switch statement.columnType(index) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return statement.int64(index)
        case SQLITE_FLOAT: return Int64(exactly: statement.double(index))
        case SQLITE_TEXT:
            guard let number = statement.optionalText(index).flatMap({ Int64($0) }) else {
                throw StoreError.failed(operation: "reading \(name)", reason: "it is not an integer")
            }
            return number
        default: throw StoreError.failed(operation: "reading \(name)", reason: "it is not an integer")
        }
    }

    package func value(_ column: String) throws -> SQLArgument {
        let index = try position(column)
        switch statement.columnType(index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(statement.int64(index))
        case SQLITE_TEXT: return .text(statement.text(index))
        case SQLITE_FLOAT:
            guard let integer = Int64(exactly: statement.double(index)) else {
                throw StoreError.failed(operation: "reading \(column)", reason: "it holds a fraction, neither INTEGER nor TEXT")
            }
            return .integer(integer)
        default: throw StoreError.failed(operation: "reading \(column)", reason: "it holds a blob, neither INTEGER nor TEXT")
        }
    }
}

extension SQLArgument {
    package var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .null: .null
        }
    }
}
