import Foundation
import SubReconModel

/// Reads and validates an import file of receipts (CSV or JSON Lines) from the app server.
///
/// The whole file is parsed in memory: import files are a few hundred megabytes at most, and the
/// contract's all-or-nothing rule means nothing can be stored before the last row has been checked
/// anyway. Parsing is a single linear pass. ``ImportFileReader`` has already left out any line too
/// long to hold a receipt, so one stray huge line costs no memory.
///
/// Rules, for both formats:
/// - Columns (CSV header names, compared case-insensitively) and keys (JSON, exact) are `user_id`,
///   `receipt_data`, and optionally `product_id`, `environment`, `transaction_id`, `bundle_id`,
///   `app_account_token`, in any order. Any other name is rejected, so a typo such as `enviroment`
///   cannot silently drop data. A CSV header needs `user_id` and one of `receipt_data`,
///   `transaction_id`, `app_account_token` (a row can be valid with any of them); whether a row
///   without receipt data is accepted is then decided per row, exactly as for a JSON line that
///   lacks the key.
/// - `user_id` must not be empty, have surrounding whitespace or contain control characters; it is
///   kept exactly as given.
/// - `receipt_data` has surrounding ASCII whitespace trimmed, then must be non-empty, at most
///   `maxReceiptBytes` bytes of base64 text, and standard base64: only `A–Z a–z 0–9 + /`, at most two
///   `=` at the very end, length a multiple of 4. Line breaks inside it are rejected.
/// - `product_id` and `environment` are trimmed; empty means absent. `environment` accepts
///   `Production`, `Sandbox` and their lowercase forms.
/// - CSV: RFC 4180 (see ``CSVRecordReader``); the first line must be the header; lines that are
///   empty or only whitespace are skipped.
/// - JSON Lines: each non-blank line is one JSON object; string values (or `null`, for the optional
///   keys) only. An empty JSON Lines file is valid and has no rows; an empty CSV file lacks its
///   header and is an error.
///
/// Each bad record yields one ``ImportProblem`` at the line where it starts, whose reason lists
/// everything wrong with it, separated by `; `. A bad header is a single problem at line 1 and ends
/// parsing.
public struct ImportFileParser: Sendable {
    /// The default largest `receipt_data` accepted, in bytes of base64 text: 1 MiB.
    public static let defaultMaxReceiptBytes = 1 << 20

    /// The name to report problems under when reading standard input (`-`).
    public static let standardInputSourceName = "<stdin>"

    /// The format to parse.
    public let format: ImportFormat
    /// The file name used in problem reports, as the operator typed it.
    public let sourceName: String
    /// The largest `receipt_data` accepted, in bytes of (trimmed) base64 text.
    public let maxReceiptBytes: Int
    /// Server-api mode: a row may carry a `transaction_id` and no receipt data (a StoreKit 2 app).
    public let acceptsTransactionIDOnly: Bool
    /// The apps a row's `bundle_id` may name. Several: every row must name one of them. One: a
    /// row may name it or none. Empty (a single app with no bundle ID configured): any.
    public let apps: [String]
    /// Apps of the apps file asked through the Server API: their rows may carry only a `transaction_id`.
    public let serverAPIApps: Set<String>

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - format: the format to parse; see ``ImportFormat/resolved(explicit:path:data:)``.
    ///   - sourceName: the file name for problem reports; ``standardInputSourceName`` for `-`.
    ///   - maxReceiptBytes: the largest `receipt_data` accepted, in bytes of base64 text.
    public init(
        format: ImportFormat, sourceName: String, maxReceiptBytes: Int = defaultMaxReceiptBytes,
        acceptsTransactionIDOnly: Bool = false, apps: [String] = [], serverAPIApps: Set<String> = []
    ) {
        self.apps = apps
        self.serverAPIApps = serverAPIApps
        self.acceptsTransactionIDOnly = acceptsTransactionIDOnly
        self.format = format
        self.sourceName = sourceName
        self.maxReceiptBytes = maxReceiptBytes
    }

    /// Parses and validates a whole file. Never throws: every problem found is in the result.
    public func parse(_ data: Data) -> ImportParseResult {
        var collector = Collector(sourceName: sourceName)
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch format {
            case .csv: parseCSV(bytes, into: &collector)
            case .jsonl: parseJSONLines(bytes, into: &collector)
            }
        }
        return ImportParseResult(rows: collector.rows, problems: collector.problems)
    }

    // MARK: - Shared

    /// The column names, in the order messages list them.
    static let columnNames = [
        "user_id", "receipt_data", "product_id", "environment", "transaction_id", "bundle_id", "app_account_token",
    ]
    /// A CSV header without any of these has no row that could be valid: `receipt_data`, or (for
    /// an app asked through the Server API) a transaction ID or an app account token alone.
    static let identifyingColumnNames = ["receipt_data", "transaction_id", "app_account_token"]
    private static let columnList =
        "user_id, receipt_data, product_id, environment, transaction_id, bundle_id and app_account_token"

    private struct Collector {
        let sourceName: String
        var rows: [ImportRow] = []
        var problems: [ImportProblem] = []

        mutating func reject(line: Int, _ reasons: [String]) {
            problems.append(ImportProblem(sourceName: sourceName, line: line, reason: reasons.joined(separator: "; ")))
        }
    }

    /// One record's values before validation; `nil` means the column or key is absent.
    private struct RawRecord {
        var userID: String?
        var receiptData: String?
        var productID: String?
        var environment: String?
        var transactionID: String? = nil
        var bundleID: String? = nil
        var appAccountToken: String? = nil
    }

    private func validate(_ raw: RawRecord, line: Int, into collector: inout Collector) {
        var reasons: [String] = []

        let userID = raw.userID ?? ""
        if let problem = Self.userIDProblem(userID, present: raw.userID != nil) { reasons.append(problem) }

        let receiptData = ASCII.trimmingWhitespace(raw.receiptData ?? "")
        let hasTransactionID = raw.transactionID.map { !ASCII.trimmingWhitespace($0).isEmpty } ?? false
        let bundleID = raw.bundleID.map(ASCII.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        let token = raw.appAccountToken.map(ASCII.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        if let token, UUID(uuidString: token) == nil {
            reasons.append("app_account_token must be a UUID (8-4-4-4-12 hex digits), not \(Self.quoted(String(token.prefix(40))))")
        }
        let serverAPIRow = acceptsTransactionIDOnly || (bundleID.map(serverAPIApps.contains) ?? false)
        if receiptData.isEmpty, !hasTransactionID, token != nil {
            // A token alone registers it for the user: only the Server API's signed data carries tokens.
            if !serverAPIRow {
                reasons.append(
                    "a row with only an app_account_token registers the token, which only the App Store Server API's data carries: "
                        + "set SUBRECON_APPLE_API=server-api (or the app's apple_api)")
            }
        } else if receiptData.isEmpty, hasTransactionID {
            // A row needs one of the two; without receipt data only the Server API can check it.
            if !acceptsTransactionIDOnly, !(bundleID.map(serverAPIApps.contains) ?? false) {
                reasons.append(
                    serverAPIApps.isEmpty && apps.count < 2
                        ? "receipt_data is empty: a row with only a transaction_id can be checked only with SUBRECON_APPLE_API=server-api"
                        : "receipt_data is empty: a row with only a transaction_id can be checked only for an app whose apple_api is server-api")
            }
        } else if let problem = receiptDataProblem(receiptData, present: raw.receiptData != nil) {
            reasons.append(problem)
        }

        let productID = raw.productID.map(ASCII.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        // Apple's transaction ids are digit strings; anything else can't be asked about.
        let transactionID = raw.transactionID.map(ASCII.trimmingWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        if let transactionID, transactionID.utf8.count > 32 || !transactionID.utf8.allSatisfy({ (48...57).contains($0) }) {
            reasons.append("transaction_id must be Apple's transaction id (up to 32 digits), not \(Self.quoted(String(transactionID.prefix(40))))")
        }

        var environment: ReceiptEnvironment?
        if let value = raw.environment.map(ASCII.trimmingWhitespace), !value.isEmpty {
            switch value {
            case "Production", "production": environment = .production
            case "Sandbox", "sandbox": environment = .sandbox
            default: reasons.append("environment must be Production or Sandbox, not \(Self.quoted(value))")
            }
        }

        if let problem = bundleIDProblem(bundleID) { reasons.append(problem) }

        if reasons.isEmpty {
            collector.rows.append(ImportRow(
                line: line, userID: userID, receiptData: receiptData,
                productID: productID, environment: environment, transactionID: transactionID, bundleID: bundleID,
                appAccountToken: token?.lowercased()
            ))
        } else {
            collector.reject(line: line, reasons)
        }
    }

    /// A row's app: with several apps it must name one of them; otherwise it may name the one
    /// configured (or, when none is, any).
    private func bundleIDProblem(_ bundleID: String?) -> String? {
        guard let bundleID else {
            return apps.count > 1
                ? "bundle_id is missing: with several apps (the apps file) every row names its app, one of \(apps.joined(separator: ", "))"
                : nil
        }
        if apps.isEmpty || apps.contains(bundleID) { return nil }
        return apps.count > 1
            ? "bundle_id \(Self.quoted(bundleID)) is not an app of the apps file (\(apps.joined(separator: ", ")))"
            : "bundle_id \(Self.quoted(bundleID)) is not the configured app (\(apps[0]))"
    }

    static func userIDProblem(_ userID: String, present: Bool) -> String? {
        guard present else { return "user_id is missing" }
        let utf8 = userID.utf8
        if utf8.allSatisfy(ASCII.isWhitespace) { return "user_id is empty" }
        if let first = utf8.first, let last = utf8.last, ASCII.isWhitespace(first) || ASCII.isWhitespace(last) {
            return "user_id has leading or trailing whitespace"
        }
        if utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "user_id contains a control character" }
        return nil
    }

    private func receiptDataProblem(_ receiptData: String, present: Bool) -> String? {
        guard present else { return "receipt_data is missing" }
        let size = receiptData.utf8.count
        if size == 0 { return "receipt_data is empty" }
        if size > maxReceiptBytes {
            return "receipt_data is \(size) bytes, over the limit of \(maxReceiptBytes) bytes"
        }
        return Self.base64Problem(receiptData).map { "receipt_data is not base64: \($0)" }
    }

    /// Checks standard base64 (RFC 4648 §4, padded) by scanning bytes, without decoding.
    /// Returns why the text is not base64, or `nil` if it is. `text` must not be empty.
    static func base64Problem(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var paddingStart: Int?
            for (offset, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    if paddingStart != nil { return "\"=\" padding appears before the end" }
                case UInt8(ascii: "="):
                    if paddingStart == nil { paddingStart = offset }
                default:
                    return "character \(offset + 1) is \(describe(byte)), which is not in the base64 alphabet"
                }
            }
            if let paddingStart, bytes.count - paddingStart > 2 {
                return "it ends with more than two \"=\""
            }
            if bytes.count % 4 != 0 {
                let noun = bytes.count == 1 ? "character" : "characters"
                return "its length, \(bytes.count) \(noun), is not a multiple of 4"
            }
            return nil
        }
    }

    /// Names a byte for a message without echoing arbitrary data.
    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0A, 0x0D: return "a line break"
        case 0x20: return "a space"
        case 0x09: return "a tab"
        case 0x21...0x7E: return "\"\(Character(Unicode.Scalar(byte)))\""
        case 0x80...: return "a non-ASCII character"
        default: return "a control character"
        }
    }

    /// A value quoted for a message, escaped and cut short so a stray huge value stays readable.
    private static func quoted(_ value: String) -> String {
        let limit = 40
        return value.count > limit ? String(reflecting: String(value.prefix(limit))) + "…" : String(reflecting: value)
    }

    // MARK: - CSV

    private static let headerUsage =
        "the first line must be the header user_id,receipt_data (optionally also product_id, environment, transaction_id, bundle_id and app_account_token)"

    private func parseCSV(_ bytes: UnsafeBufferPointer<UInt8>, into collector: inout Collector) {
        // Column index of each known name, once the header has been accepted.
        var columns: [String: Int]?
        var fieldCount = 0
        var headerFailed = false

        CSVRecordReader.forEachRecord(in: bytes) { line, content in
            guard !headerFailed else { return }
            guard let columnIndex = columns else {
                // The first record must be the header, on line 1.
                let reason: String?
                switch content {
                case .blank:
                    reason = "\(Self.headerUsage), but line 1 is empty"
                case .unreadable(let why):
                    reason = why
                case .fields(let names):
                    switch Self.parseHeader(names) {
                    case .success(let map):
                        columns = map
                        fieldCount = names.count
                        reason = nil
                    case .failure(let why):
                        reason = why.message
                    }
                }
                if let reason {
                    collector.reject(line: 1, [reason])
                    headerFailed = true
                }
                return
            }
            switch content {
            case .blank:
                return
            case .unreadable(let why):
                collector.reject(line: line, [why])
            case .fields(let fields):
                guard fields.count == fieldCount else {
                    let noun = fieldCount == 1 ? "field" : "fields"
                    collector.reject(line: line, [
                        "expected \(fieldCount) \(noun) as in the header, but found \(fields.count)",
                    ])
                    return
                }
                let raw = RawRecord(
                    userID: columnIndex["user_id"].map { fields[$0] },
                    receiptData: columnIndex["receipt_data"].map { fields[$0] },
                    productID: columnIndex["product_id"].map { fields[$0] },
                    environment: columnIndex["environment"].map { fields[$0] },
                    transactionID: columnIndex["transaction_id"].map { fields[$0] },
                    bundleID: columnIndex["bundle_id"].map { fields[$0] },
                    appAccountToken: columnIndex["app_account_token"].map { fields[$0] }
                )
                validate(raw, line: line, into: &collector)
            }
        }

        if columns == nil, !headerFailed {
            collector.reject(line: 1, ["the file is empty; \(Self.headerUsage)"])
        }
    }

    private struct HeaderError: Error {
        let message: String
    }

    /// Maps each known column name to its index, or explains what is wrong with the header.
    private static func parseHeader(_ names: [String]) -> Result<[String: Int], HeaderError> {
        var map: [String: Int] = [:]
        var reasons: [String] = []
        for (index, rawName) in names.enumerated() {
            let name = ASCII.trimmingWhitespace(rawName)
            let key = name.lowercased()
            if !columnNames.contains(key) {
                reasons.append(name.isEmpty
                    ? "column \(index + 1) of the header has no name"
                    : "the header names an unknown column \(quoted(name)); the columns are \(columnList)")
            } else if map[key] != nil {
                reasons.append("the header names the column \(key) twice")
            } else {
                map[key] = index
            }
        }
        if map["user_id"] == nil { reasons.append("the header lacks the required column user_id") }
        if !identifyingColumnNames.contains(where: { map[$0] != nil }) {
            reasons.append("the header lacks the required column receipt_data")
        }
        return reasons.isEmpty ? .success(map) : .failure(HeaderError(message: reasons.joined(separator: "; ")))
    }

    // MARK: - JSON Lines

    private func parseJSONLines(_ bytes: UnsafeBufferPointer<UInt8>, into collector: inout Collector) {
        let decoder = JSONDecoder()
        var index = 0
        var line = 1
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }

        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var start = index
            var stop = end
            while start < stop, ASCII.isWhitespace(bytes[start]) { start += 1 }
            while stop > start, ASCII.isWhitespace(bytes[stop - 1]) { stop -= 1 }
            if start < stop {
                parseJSONLine(UnsafeBufferPointer(rebasing: bytes[start..<stop]), line: line,
                              decoder: decoder, into: &collector)
            }
            index = end + 1
            line += 1
        }
    }

    private func parseJSONLine(
        _ bytes: UnsafeBufferPointer<UInt8>, line: Int, decoder: JSONDecoder, into collector: inout Collector
    ) {
        // Checked first so invalid UTF-8 gets its own message rather than "not valid JSON".
        guard String(validating: bytes, as: UTF8.self) != nil else {
            collector.reject(line: line, [CSVRecordReader.invalidUTF8Reason])
            return
        }
        let value: JSONValue
        do {
            value = try decoder.decode(JSONValue.self, from: Data(bytes))
        } catch {
            collector.reject(line: line, ["the line is not valid JSON"])
            return
        }
        guard case .object(let object) = value else {
            collector.reject(line: line, ["the line is \(value.kind), not a JSON object"])
            return
        }

        var reasons: [String] = []
        for key in object.keys.sorted() where !Self.columnNames.contains(key) {
            reasons.append("unknown key \(Self.quoted(key)); the keys are \(Self.columnList)")
        }
        var strings: [String: String] = [:]
        for key in Self.columnNames {
            switch object[key] {
            case .string(let string)?: strings[key] = string
            case .null?, nil: break
            case let other?: reasons.append("\(key) must be a string, not \(other.kind)")
            }
        }
        guard reasons.isEmpty else {
            collector.reject(line: line, reasons)
            return
        }
        let raw = RawRecord(
            userID: strings["user_id"], receiptData: strings["receipt_data"],
            productID: strings["product_id"], environment: strings["environment"],
            transactionID: strings["transaction_id"], bundleID: strings["bundle_id"],
            appAccountToken: strings["app_account_token"]
        )
        validate(raw, line: line, into: &collector)
    }

    /// Just enough of JSON to tell strings from everything else and say what the rest is.
    private enum JSONValue: Decodable {
        case string(String)
        case number
        case bool
        case null
        case array
        case object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let string = try? container.decode(String.self) {
                self = .string(string)
            } else if (try? container.decode(Bool.self)) != nil {
                self = .bool
            } else if (try? container.decode(Double.self)) != nil {
                self = .number
            } else if let object = try? container.decode([String: JSONValue].self) {
                self = .object(object)
            } else {
                _ = try container.decode([JSONValue].self)
                self = .array
            }
        }

        var kind: String {
            switch self {
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }
}
