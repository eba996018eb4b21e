import SubReconModel

/// SQL built from table and column names (`subrecon db copy`), written the way both stores read it:
/// every name quoted, so any name the schema holds stays one identifier.
package enum BulkLoadSQL {
    package static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    package static func columnList(_ columns: [String]) -> String {
        columns.map(identifier).joined(separator: ", ")
    }

    /// One row's `INSERT`, `?` for each column.
    package static func insert(into table: String, columns: [String]) -> String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO \(identifier(table)) (\(columnList(columns))) VALUES (\(placeholders))"
    }
}
