import PostgresNIO

/// The shared SQL's `?` placeholders become PostgreSQL's `$1, $2, …`; values are bound, never
/// spliced into the text.
enum PostgresSQL {
    static func query(_ sql: String, _ arguments: [SQLArgument]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: numbered(sql), binds: bindings(arguments))
    }

    /// `sql` with its `?` placeholders numbered `$1, $2, …`.
    static func numbered(_ sql: String) -> String {
        var text = ""
        text.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        for character in sql {
            if character == "?" {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        return text
    }

    /// A prepared statement's parameters, in order (arrays bind as PostgreSQL arrays).
    static func bindings(_ values: any PostgresThrowingDynamicTypeEncodable...) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        return bindings
    }

    static func bindings(_ arguments: [SQLArgument]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .integer(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .null: bindings.appendNull()
            }
        }
        return bindings
    }
}

/// Rows for one statement per table per batch: a JSON array bound as one `jsonb` parameter and
/// read with `jsonb_to_recordset`, which keeps NULLs and needs no array type per column.
struct JSONRecords {
    let columns: [String]
    private(set) var text = "["
    private(set) var count = 0

    init(_ columns: [String]) { self.columns = columns }

    mutating func append(_ values: [SQLArgument]) {
        precondition(values.count == columns.count, "one value per column")
        if count > 0 { text += "," }
        text += "{"
        for (index, (column, value)) in zip(columns, values).enumerated() {
            if index > 0 { text += "," }
            text += "\"\(column)\":"
            switch value {
            case .integer(let number): text += String(number)
            case .text(let string): text += JSONLogHandler.quote(string)
            case .null: text += "null"
            }
        }
        text += "}"
        count += 1
    }

    var json: String { text + "]" }

    /// The `AS x(column type, …)` list for `jsonb_to_recordset`: the integer columns bigint,
    /// every other one text.
    static func recordType(_ columns: [String]) -> String {
        columns.map { "\($0) \(integerColumns.contains($0) ? "bigint" : "text")" }.joined(separator: ", ")
    }

    static let integerColumns: Set<String> = [
        "id", "receipt_id", "expires_date_ms", "auto_renew_status", "expiration_intent",
        "grace_period_expires_date_ms", "is_in_billing_retry", "cancellation_date_ms", "last_verified_at",
        "first_seen_at", "updated_at", "purchase_date_ms", "is_trial_period", "is_in_intro_offer_period",
        "first_seen_run_id", "next_due_at", "last_attempt_at", "last_apple_status", "consecutive_failures",
        "run_id", "apple_status", "old_expires_date_ms", "new_expires_date_ms", "recorded_at",
        "old_auto_renew_status", "new_auto_renew_status", "signed_date", "received_at", "last_received_at",
    ]
}
