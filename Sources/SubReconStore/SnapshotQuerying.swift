import SubReconModel

/// A value bound into a query: the few types our tables use, in either store's dialect.
public enum SQLArgument: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case null

    public init(_ value: Int64?) { self = value.map(SQLArgument.integer) ?? .null }
    public init(_ value: String?) { self = value.map(SQLArgument.text) ?? .null }
}

/// One row of a query, read by column name (columns are INTEGER or TEXT in both stores). Raw
/// access (`RawSQL`): the store's own reads and `db copy` use it; the application reads typed rows
/// (`Reads/`), and the compiler refuses this to any file that does not import the SPI.
@_spi(RawSQL) public protocol QueryRow {
    func text(_ column: String) throws -> String?
    func integer(_ column: String) throws -> Int64?
    /// The value as it is stored, INTEGER or TEXT (a copy moves it without knowing its column).
    func value(_ column: String) throws -> SQLArgument
}

extension QueryRow {
    /// A column the schema declares NOT NULL.
    @_spi(RawSQL) public func requiredText(_ column: String) throws -> String {
        guard let value = try text(column) else { throw StoreError.failed(operation: "reading \(column)", reason: "it is NULL") }
        return value
    }

    @_spi(RawSQL) public func requiredInteger(_ column: String) throws -> Int64 {
        guard let value = try integer(column) else { throw StoreError.failed(operation: "reading \(column)", reason: "it is NULL") }
        return value
    }

    /// A 0/1 column (SQLite has no boolean type, so neither do our tables).
    @_spi(RawSQL) public func flag(_ column: String) throws -> Bool? { try integer(column).map { $0 != 0 } }
}

/// Read-only queries that all see one consistent snapshot of the store (reports, status, metrics,
/// copies), written once in the SQL both stores accept: `?` placeholders, INTEGER and TEXT columns,
/// text ordered by its bytes. What the application reads is a typed method of `Reads/`; running a
/// statement by its text is raw access (`RawSQL`), for the store itself, `db copy`, the benchmark
/// and tests.
public protocol SnapshotQuerying {
    /// Runs `sql` and hands each row to `body`, streaming (memory stays flat in the table's size).
    @_spi(RawSQL) func forEachRow(_ sql: String, _ arguments: [SQLArgument], _ body: (any QueryRow) throws -> Void) async throws
    /// Every ledger row of `environment` (`SchemaSQL.ledgerWalk`), each with its period key: one
    /// subscription's periods together, in purchase order (SQLite puts unknown dates first,
    /// PostgreSQL last: `LedgerWalk` orders them), then period key. Each store reads them its
    /// fastest way: the money reports walk millions.
    /// `withParityColumns` also reads each row's storefront and revocation type (`report
    /// apple-parity`); the money reports, which need neither, do not pay for them.
    func forEachLedgerRow(
        environment: String, withParityColumns: Bool, _ body: (String, LedgerEntry) throws -> Void) async throws
}

extension SnapshotQuerying {
    package func forEachLedgerRow(environment: String, _ body: (String, LedgerEntry) throws -> Void) async throws {
        try await forEachLedgerRow(environment: environment, withParityColumns: false, body)
    }

    @_spi(RawSQL) public func all<T>(_ sql: String, _ arguments: [SQLArgument] = [], _ transform: (any QueryRow) throws -> T) async throws -> [T] {
        var result: [T] = []
        try await forEachRow(sql, arguments) { result.append(try transform($0)) }
        return result
    }

    @_spi(RawSQL) public func integer(_ sql: String, _ arguments: [SQLArgument] = []) async throws -> Int64? {
        var value: Int64?
        try await forEachRow(sql, arguments) { row in if value == nil { value = try row.integer("value") } }
        return value
    }
}
