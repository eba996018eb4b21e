import SubReconAppStore

/// The figures behind a chart as an HTML table, inside a `<details>` that is open when the table is
/// short: every figure stays readable as text, with scripts off, without burying the page in rows.
struct DashboardTable: Sendable {
    /// One column: its heading and whether its cells are numbers (right-aligned, tabular digits).
    struct Column: Sendable {
        var heading: String
        var numeric: Bool

        static func text(_ heading: String) -> Column { Column(heading: heading, numeric: false) }
        static func number(_ heading: String) -> Column { Column(heading: heading, numeric: true) }
    }

    var columns: [Column]
    var rows: [[String]]

    /// Tables up to this many rows are shown open; longer ones start folded (one click, no script).
    static let openRowLimit = 12

    /// The text shown for an empty cell: the CSV leaves it empty (a price or rate not known).
    static let emptyCell = "—"

    func html() -> String {
        var out = rows.count <= Self.openRowLimit ? "<details open>" : "<details>"
        out += "<summary>Figures (\(rows.count) \(rows.count == 1 ? "row" : "rows"))</summary>"
        out += "<div class=\"table-wrap\"><table><thead><tr>"
        for column in columns {
            out += column.numeric ? "<th class=\"num\">" : "<th>"
            out += DashboardHTML.escape(column.heading) + "</th>"
        }
        out += "</tr></thead><tbody>"
        for row in rows {
            out += "<tr>"
            for (index, cell) in row.enumerated() {
                let numeric = columns.indices.contains(index) && columns[index].numeric
                if cell.isEmpty {
                    out += "<td class=\"\(numeric ? "num " : "")none\">\(Self.emptyCell)</td>"
                } else {
                    out += (numeric ? "<td class=\"num\">" : "<td>") + DashboardHTML.escape(cell) + "</td>"
                }
            }
            out += "</tr>"
        }
        return out + "</tbody></table></div></details>"
    }
}
