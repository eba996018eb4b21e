import PostgresNIO
import SubReconModel

/// The shared SQL's `?` placeholders become PostgreSQL's `$1, $2, …`; values are bound, never
/// spliced into the text.
package enum PostgresSQL {
    package static func query(_ sql: String, _ arguments: [SQLArgument]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: numbered(sql), binds: bindings(arguments))
    }

    /// `sql` with its `?` placeholders numbered `$1, $2, …`.
    package static func numbered(_ sql: String) -> String {
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
    package static func bindings(_ values: any PostgresThrowingDynamicTypeEncodable...) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        return bindings
    }

    package static func bindings(_ arguments: [SQLArgument]) -> PostgresBindings {
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
package struct JSONRecords {
    package let columns: [String]
    /// `"column":` for each column, as bytes.
    private let keys: [[UInt8]]
    /// The array so far, without its closing bracket: built as UTF-8 bytes (a hot path of every
    /// batch: appending to a String scalar by scalar showed in the receiver's profile;
    /// docs/performance.md, "Notifications receiver").
    private var bytes: [UInt8] = [UInt8(ascii: "[")]
    package private(set) var count = 0

    package init(_ columns: [String]) {
        self.columns = columns
        keys = columns.map { Array("\"\($0)\":".utf8) }
    }

    package mutating func append(_ values: [SQLArgument]) {
        precondition(values.count == columns.count, "one value per column")
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: keys[index])
            switch value {
            case .integer(let number): bytes.append(contentsOf: String(number).utf8)
            case .text(let string): appendQuoted(string)
            case .null: bytes.append(contentsOf: "null".utf8)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        count += 1
    }

    package var json: String {
        var all = bytes
        all.append(UInt8(ascii: "]"))
        return String(decoding: all, as: UTF8.self)
    }

    /// A JSON string: quote, backslash and control characters escaped, everything else (valid
    /// UTF-8, as every Swift String is) copied as it is.
    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The `AS x(column type, …)` list for `jsonb_to_recordset`: the integer columns bigint,
    /// every other one text.
    package static func recordType(_ columns: [String]) -> String {
        columns.map { "\($0) \(integerColumns.contains($0) ? "bigint" : "text")" }.joined(separator: ", ")
    }

    package static let integerColumns: Set<String> = [
        "id", "receipt_id", "expires_date_ms", "auto_renew_status", "expiration_intent",
        "grace_period_expires_date_ms", "is_in_billing_retry", "cancellation_date_ms", "last_verified_at",
        "first_seen_at", "updated_at", "purchase_date_ms", "is_trial_period", "is_in_intro_offer_period",
        "first_seen_run_id", "next_due_at", "last_attempt_at", "last_apple_status", "consecutive_failures",
        "run_id", "apple_status", "old_expires_date_ms", "new_expires_date_ms", "recorded_at",
        "old_auto_renew_status", "new_auto_renew_status", "signed_date", "received_at", "last_received_at",
        "price_milliunits", "offer_type", "revocation_percentage", "refund_milliunits", "is_upgraded", "ledger_signed_date",
        "position", "seq", "attempts", "next_attempt_at", "last_seq",
    ]
}
