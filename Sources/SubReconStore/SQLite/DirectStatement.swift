import Foundation
import GRDB
import GRDBSQLite
import SubReconModel

/// A GRDB-prepared statement driven through SQLite's C API (GRDB's documented raw-pointer escape
/// hatch), for the reconciliation's per-receipt statements only. GRDB's `execute(arguments:)` and
/// `Row` cost much of a receipt's write: an array of boxed `DatabaseValue`s per call, binding
/// through nested closures, a lowercased column-name dictionary per fetched row (measured:
/// docs/performance.md, "Earlier figures behind the code's choices"). GRDB still owns the
/// statement's life (its statement cache) and the transaction around it.
///
/// Use: `run(values…)` for a write, or `bind(values…)` then `step()` and column reads for a query.
package struct DirectStatement {
    private let statement: Statement
    private let handle: OpaquePointer

    package init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
    }

    /// Clears the previous execution and its bindings (unbound parameters are NULL).
    package func reset() {
        // sqlite3_reset repeats the last step's error, which was already thrown: ignored here.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement and binds `values` to its parameters 1, 2, … in order (nil is NULL).
    package func bind<each Value: DirectBindable>(_ values: repeat each Value) throws {
        reset()
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            try checked(value.bind(to: handle, at: index))
        }
        // A count that does not match the SQL is a bug in this file, not bad data.
        precondition(index == sqlite3_bind_parameter_count(handle), "\(index) values for: \(statement.sql)")
    }

    /// Resets, binds `values` (see `bind`) and runs a statement that returns no rows.
    package func run<each Value: DirectBindable>(_ values: repeat each Value) throws {
        try bind(repeat each values)
        while try step() {}
    }

    /// Resets, binds `values` in order and runs a statement that returns no rows (a row's columns
    /// kept as one list, like the ledger's).
    package func run(values: [SQLArgument]) throws {
        reset()
        for (offset, value) in values.enumerated() { try checked(value.bind(to: handle, at: Int32(offset + 1))) }
        precondition(values.count == Int(sqlite3_bind_parameter_count(handle)), "\(values.count) values for: \(statement.sql)")
        while try step() {}
    }

    /// Resets and binds `values` in order (a query's parameters; then `step()`).
    package func bind(values: [SQLArgument]) throws {
        reset()
        for (offset, value) in values.enumerated() { try checked(value.bind(to: handle, at: Int32(offset + 1))) }
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw DatabaseError(message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters", sql: statement.sql)
        }
    }

    /// The result's column names and their positions.
    package func columnIndexes() -> [String: Int32] {
        var names: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, index) { names[String(cString: name)] = names[String(cString: name)] ?? index }
        }
        return names
    }

    package func columnType(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// A bind fails on a value over SQLite's length limit or out of memory: the error rolls the
    /// batch back, where carrying on would write NULL in place of the value.
    private func checked(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "binding a parameter failed", sql: statement.sql)
    }

    /// Advances to the next row; false when there is none.
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    package func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : Int(int64(column)) }

    package func optionalBool(_ column: Int32) -> Bool? { isNull(column) ? nil : int64(column) != 0 }

    package func bool(_ column: Int32) -> Bool { int64(column) != 0 }

    package func text(_ column: Int32) -> String { optionalText(column) ?? "" }

    package func optionalText(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Whether a text column holds exactly `expected`, compared in place (no String made): the
    /// receipt data re-read in every write is ~4.4 KB.
    package func text(_ column: Int32, equals expected: String) -> Bool {
        guard let bytes = sqlite3_column_text(handle, column) else { return false }
        let count = Int(sqlite3_column_bytes(handle, column))
        var expected = expected
        return expected.withUTF8 { wanted in
            wanted.count == count && (count == 0 || memcmp(wanted.baseAddress!, bytes, count) == 0)
        }
    }

}

/// A value `DirectStatement` binds to a parameter.
package protocol DirectBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int64: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

extension Int: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, Int64(self)) }
}

extension Bool: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self ? 1 : 0) }
}

extension String: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = self
        return text.withUTF8 { bytes in
            // SQLITE_TRANSIENT: SQLite copies the bytes. An empty string has no storage: bind a
            // zero-length text, which is not NULL.
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_bind_text(statement, index, chars, Int32(bytes.count), transient)
            }
        }
    }
}

extension Optional: DirectBindable where Wrapped: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // Parameters are cleared by `reset()`: NULL needs no call.
        map { $0.bind(to: statement, at: index) } ?? SQLITE_OK
    }
}

extension SQLArgument: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .integer(let value): value.bind(to: statement, at: index)
        case .text(let value): value.bind(to: statement, at: index)
        case .null: SQLITE_OK
        }
    }
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
