import GRDB

extension AppDatabase {
    public var location: String { path }
    /// One machine, one nightly run at a time (the run lock): due receipts are paged, not claimed.
    public var splitsDueReceipts: Bool { false }
    public func releaseClaims() async throws(StoreError) {}
    /// The run lock's default lease (`ReconciliationRun.Options.leaseMs`).
    public var claimTimeoutMs: Int64 { 120_000 }
    public func close() async { await checkpointer?.stop() }

    /// Migrations applied, counted the way `PostgresStore` counts its schema version.
    public func schemaVersion() async throws(StoreError) -> Int {
        try await read("reading the schema version") { db in try Self.migrator.appliedIdentifiers(db).count }
    }

    /// Every query of `body` reads one WAL snapshot: a run writing meanwhile is invisible to it.
    public func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        guard let pool = writer as? DatabasePool else { return try await body(SQLiteSnapshot(reader: writer)) }
        let snapshot: DatabaseSnapshot
        do { snapshot = try pool.makeSnapshot() } catch { throw Self.wrap(error, "opening a read snapshot") }
        return try await body(SQLiteSnapshot(reader: snapshot))
    }
}

/// `SnapshotQuerying` over a GRDB reader (a snapshot: every read sees the same data).
struct SQLiteSnapshot: SnapshotQuerying {
    let reader: any DatabaseReader

    func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws {
        // A synchronous read: reports and copies are one command's only work. `body` runs on this
        // thread before `read` returns, so handing it over unchecked is safe.
        try withoutActuallyEscaping(body) { body in
            let handler = UncheckedRowHandler(body: body)
            try reader.read { db in
                let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
                while let row = try rows.next() { try handler.body(SQLiteQueryRow(row: row)) }
            }
        }
    }
}

private struct UncheckedRowHandler: @unchecked Sendable {
    let body: (any QueryRow) throws -> Void
}

struct SQLiteQueryRow: QueryRow {
    let row: Row

    private func storedValue(_ column: String) throws -> DatabaseValue {
        guard row.hasColumn(column) else { throw StoreError.failed(operation: "reading a row", reason: "no column \(column)") }
        return row[column]
    }

    private func storedValue(at index: Int) throws -> DatabaseValue {
        guard index >= 0, index < row.count else { throw StoreError.failed(operation: "reading a row", reason: "no column \(index)") }
        return row[index]
    }

    func text(at index: Int) throws -> String? { try Self.text(try storedValue(at: index)) }
    func integer(at index: Int) throws -> Int64? { try Self.integer(try storedValue(at: index), column: "column \(index)") }
    func text(_ column: String) throws -> String? { try Self.text(try storedValue(column)) }
    func integer(_ column: String) throws -> Int64? { try Self.integer(try storedValue(column), column: column) }

    private static func text(_ value: DatabaseValue) throws -> String? {
        switch value.storage {
        case .null: nil
        case .string(let text): text
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .blob(let data): String(decoding: data, as: UTF8.self)
        }
    }

    private static func integer(_ value: DatabaseValue, column: String) throws -> Int64? {
        switch value.storage {
        case .null: return nil
        case .int64(let number): return number
        case .double(let number): return Int64(exactly: number)
        case .string(let text):
            guard let number = Int64(text) else {
                throw StoreError.failed(operation: "reading \(column)", reason: "it is not an integer")
            }
            return number
        case .blob: throw StoreError.failed(operation: "reading \(column)", reason: "it is not an integer")
        }
    }

    func value(_ column: String) throws -> SQLArgument {
        switch try storedValue(column).storage {
        case .null: return .null
        case .int64(let number): return .integer(number)
        case .string(let text): return .text(text)
        case .double(let number):
            guard let integer = Int64(exactly: number) else {
                throw StoreError.failed(operation: "reading \(column)", reason: "it holds a fraction, neither INTEGER nor TEXT")
            }
            return .integer(integer)
        case .blob: throw StoreError.failed(operation: "reading \(column)", reason: "it holds a blob, neither INTEGER nor TEXT")
        }
    }
}

extension SQLArgument {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .null: .null
        }
    }
}
