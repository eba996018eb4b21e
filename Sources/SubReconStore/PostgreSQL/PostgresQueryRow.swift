import PostgresNIO

/// A row of a `PostgresSnapshot` query, by column name.
package struct PostgresQueryRow: QueryRow {
    package let row: PostgresRandomAccessRow

    private func cell(_ column: String) throws -> PostgresCell {
        guard row.contains(column) else { throw StoreError.failed(operation: "reading a row", reason: "no column \(column)") }
        return row[column]
    }

    package func text(_ column: String) throws -> String? { try cell(column).decode(String?.self) }
    package func integer(_ column: String) throws -> Int64? { try cell(column).decode(Int64?.self) }

    package func value(_ column: String) throws -> SQLArgument {
        let cell = try cell(column)
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
        case .text, .varchar, .name: return .text(try cell.decode(String.self))
        default:
            throw StoreError.failed(operation: "reading \(column)", reason: "its type \(cell.dataType) is neither BIGINT nor TEXT")
        }
    }
}
