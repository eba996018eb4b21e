import GRDB
import GRDBSQLite

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
