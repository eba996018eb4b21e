import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// One table row: an input file and what the parser must make of it.
private struct ParseCase: Sendable, CustomTestStringConvertible {
    let name: String
    let input: String
    var rows: [ImportRow] = []
    var problems: [String] = []
    var testDescription: String { name }
}

private func parse(
    _ input: String, format: ImportFormat, sourceName: String? = nil, maxReceiptBytes: Int = 1 << 20
) -> ImportParseResult {
    parse(Data(input.utf8), format: format, sourceName: sourceName, maxReceiptBytes: maxReceiptBytes)
}

private func parse(
    _ data: Data, format: ImportFormat, sourceName: String? = nil, maxReceiptBytes: Int = 1 << 20
) -> ImportParseResult {
    let name = sourceName ?? (format == .csv ? "receipts.csv" : "receipts.jsonl")
    return ImportFileParser(format: format, sourceName: name, maxReceiptBytes: maxReceiptBytes).parse(data)
}

private func row(
    _ line: Int, _ userID: String, _ receipt: String = "QUJD",
    product: String? = nil, environment: ReceiptEnvironment? = nil
) -> ImportRow {
    ImportRow(line: line, userID: userID, receiptData: receipt, productID: product, environment: environment)
}

private let headerUsage =
    "the first line must be the header user_id,receipt_data (optionally also product_id, environment, transaction_id, bundle_id and app_account_token)"
private let columnList = "user_id, receipt_data, product_id, environment, transaction_id, bundle_id and app_account_token"

@Suite("ImportFileParser: CSV")
struct ImportFileParserCSVTests {
    @Test(arguments: [
        ParseCase(name: "required columns only", input: "user_id,receipt_data\nu1,QUJD\nu2,QUJDRA==\nu3,QUJDREU=\n",
                  rows: [row(2, "u1"), row(3, "u2", "QUJDRA=="), row(4, "u3", "QUJDREU=")]),
        ParseCase(name: "all optional columns, normalised",
                  input: """
                  user_id,receipt_data,product_id,environment
                  u1,QUJD,com.example.monthly,Production
                  u2,QUJD,,sandbox
                  u3,QUJD, com.example.yearly ,
                  u4,QUJD,p,production
                  u5,QUJD,p,Sandbox

                  """,
                  rows: [row(2, "u1", product: "com.example.monthly", environment: .production),
                         row(3, "u2", environment: .sandbox),
                         row(4, "u3", product: "com.example.yearly"),
                         row(5, "u4", product: "p", environment: .production),
                         row(6, "u5", product: "p", environment: .sandbox)]),
        ParseCase(name: "columns in another order",
                  input: "environment,receipt_data,product_id,user_id\nSandbox,QUJD,p1,u1\n",
                  rows: [row(2, "u1", product: "p1", environment: .sandbox)]),
        ParseCase(name: "header names are trimmed and case-insensitive",
                  input: " User_ID , RECEIPT_DATA\nu1,QUJD\n", rows: [row(2, "u1")]),
        ParseCase(name: "CRLF line ends", input: "user_id,receipt_data\r\nu1,QUJD\r\nu2,QUJD\r\n",
                  rows: [row(2, "u1"), row(3, "u2")]),
        ParseCase(name: "byte-order mark", input: "\u{FEFF}user_id,receipt_data\nu1,QUJD\n", rows: [row(2, "u1")]),
        ParseCase(name: "quoted fields with commas and doubled quotes",
                  input: "\"user_id\",\"receipt_data\"\n\"u,1\",\"QUJD\"\n\"say \"\"hi\"\"\",QUJD\nu4,\"QUJD\"\n",
                  rows: [row(2, "u,1"), row(3, "say \"hi\""), row(4, "u4")]),
        ParseCase(name: "quoted line breaks count towards line numbers",
                  input: "user_id,receipt_data,product_id\nu1,QUJD,\"p\nq\"\nu2,\"\r\n  QUJD\r\n\",p\nu3,QUJD,p\n",
                  rows: [row(2, "u1", product: "p\nq"), row(4, "u2", product: "p"), row(7, "u3", product: "p")]),
        ParseCase(name: "blank lines are skipped, trailing ones too",
                  input: "user_id,receipt_data\nu1,QUJD\n\n   \nu2,QUJD\n\n", rows: [row(2, "u1"), row(5, "u2")]),
        ParseCase(name: "no final line break", input: "user_id,receipt_data\nu1,QUJD", rows: [row(2, "u1")]),
        ParseCase(name: "no final line break after CR", input: "user_id,receipt_data\r\nu1,QUJD\r",
                  rows: [row(2, "u1")]),
        ParseCase(name: "header only", input: "user_id,receipt_data\n"),
        ParseCase(name: "receipt whitespace trimmed, user_id kept exactly",
                  input: "user_id,receipt_data\nZoë 42,  QUJD\t\n", rows: [row(2, "Zoë 42")]),
    ])
    fileprivate func goodFiles(_ testCase: ParseCase) {
        let result = parse(testCase.input, format: .csv)
        #expect(result.problems.map(\.description) == testCase.problems)
        #expect(result.rows == testCase.rows)
    }

    @Test(arguments: [
        ParseCase(name: "empty user_id", input: ",QUJD", problems: ["receipts.csv:2: user_id is empty"]),
        ParseCase(name: "blank user_id", input: "  ,QUJD", problems: ["receipts.csv:2: user_id is empty"]),
        ParseCase(name: "user_id with surrounding space", input: "u1 ,QUJD",
                  problems: ["receipts.csv:2: user_id has leading or trailing whitespace"]),
        ParseCase(name: "user_id with a control character", input: "\"u\u{1}1\",QUJD",
                  problems: ["receipts.csv:2: user_id contains a control character"]),
        ParseCase(name: "empty receipt", input: "u1,", problems: ["receipts.csv:2: receipt_data is empty"]),
        ParseCase(name: "blank receipt", input: "u1,  ", problems: ["receipts.csv:2: receipt_data is empty"]),
        ParseCase(name: "character outside the alphabet", input: "u1,QU%D", problems: [
            "receipts.csv:2: receipt_data is not base64: character 3 is \"%\", which is not in the base64 alphabet",
        ]),
        ParseCase(name: "URL-safe alphabet", input: "u1,ab-_", problems: [
            "receipts.csv:2: receipt_data is not base64: character 3 is \"-\", which is not in the base64 alphabet",
        ]),
        ParseCase(name: "embedded line break", input: "u1,\"QUJD\nQUJD\"", problems: [
            "receipts.csv:2: receipt_data is not base64: character 5 is a line break, which is not in the base64 alphabet",
        ]),
        ParseCase(name: "embedded space", input: "u1,QUJD QUJD", problems: [
            "receipts.csv:2: receipt_data is not base64: character 5 is a space, which is not in the base64 alphabet",
        ]),
        ParseCase(name: "non-ASCII", input: "u1,QUJé", problems: [
            "receipts.csv:2: receipt_data is not base64: character 4 is a non-ASCII character, which is not in the base64 alphabet",
        ]),
        ParseCase(name: "length not a multiple of 4", input: "u1,QUJDR", problems: [
            "receipts.csv:2: receipt_data is not base64: its length, 5 characters, is not a multiple of 4",
        ]),
        ParseCase(name: "padding then data", input: "u1,QQ=A", problems: [
            "receipts.csv:2: receipt_data is not base64: \"=\" padding appears before the end",
        ]),
        ParseCase(name: "padding first", input: "u1,=QUJ", problems: [
            "receipts.csv:2: receipt_data is not base64: \"=\" padding appears before the end",
        ]),
        ParseCase(name: "padding mid-receipt", input: "u1,QQ==QUJD", problems: [
            "receipts.csv:2: receipt_data is not base64: \"=\" padding appears before the end",
        ]),
        ParseCase(name: "three padding characters", input: "u1,Q===", problems: [
            "receipts.csv:2: receipt_data is not base64: it ends with more than two \"=\"",
        ]),
        ParseCase(name: "only padding", input: "u1,====", problems: [
            "receipts.csv:2: receipt_data is not base64: it ends with more than two \"=\"",
        ]),
        ParseCase(name: "padding that makes the length wrong", input: "u1,QUJD=", problems: [
            "receipts.csv:2: receipt_data is not base64: its length, 5 characters, is not a multiple of 4",
        ]),
        ParseCase(name: "too many fields", input: "u1,QUJD,extra",
                  problems: ["receipts.csv:2: expected 2 fields as in the header, but found 3"]),
        ParseCase(name: "too few fields", input: "u1",
                  problems: ["receipts.csv:2: expected 2 fields as in the header, but found 1"]),
        ParseCase(name: "unclosed quote", input: "u1,\"QUJD\nu2,QUJD\n", problems: [
            "receipts.csv:2: a quoted field on this record is never closed",
        ]),
        ParseCase(name: "text after a closing quote", input: "\"u1\"x,QUJD", problems: [
            "receipts.csv:2: a closing quote must be followed by a comma or the end of the line",
        ]),
        ParseCase(name: "quote inside an unquoted field", input: "u\"1,QUJD", problems: [
            "receipts.csv:2: a quote appears inside an unquoted field; quote the whole field and double any quotes in it",
        ]),
        ParseCase(name: "everything wrong at once is one report", input: ",QU%D", problems: [
            "receipts.csv:2: user_id is empty; receipt_data is not base64: character 3 is \"%\", which is not in the base64 alphabet",
        ]),
    ])
    fileprivate func badRows(_ testCase: ParseCase) {
        let result = parse("user_id,receipt_data\n" + testCase.input + "\n", format: .csv)
        #expect(result.problems.map(\.description) == testCase.problems)
        #expect(result.rows.isEmpty)
    }

    @Test(arguments: [
        ("prod", "environment must be Production or Sandbox, not \"prod\""),
        ("PRODUCTION", "environment must be Production or Sandbox, not \"PRODUCTION\""),
        ("Sandbox2", "environment must be Production or Sandbox, not \"Sandbox2\""),
        (String(repeating: "x", count: 50), "environment must be Production or Sandbox, not \"\(String(repeating: "x", count: 40))\"…"),
    ])
    func badEnvironment(value: String, reason: String) {
        let result = parse("user_id,receipt_data,environment\nu1,QUJD,\(value)\n", format: .csv)
        #expect(result.problems.map(\.description) == ["receipts.csv:2: \(reason)"])
    }

    @Test func everyBadRowIsReportedWithItsStartingLine() {
        let input = """
        user_id,receipt_data,product_id
        u1,QUJD,p
        ,QUJD,p
        u3,QUJD,"two
        lines"
        u4,QU=D,p
        u5,QUJD,p


        u6,QUJD
        u7,,p
        """
        let result = parse(input, format: .csv)
        #expect(result.problems.map(\.description) == [
            "receipts.csv:3: user_id is empty",
            "receipts.csv:6: receipt_data is not base64: \"=\" padding appears before the end",
            "receipts.csv:10: expected 3 fields as in the header, but found 2",
            "receipts.csv:11: receipt_data is empty",
        ])
        #expect(result.problems.map(\.line) == [3, 6, 10, 11])
        // The good rows are still parsed; the caller imports nothing because problems is not empty.
        #expect(result.rows.map(\.line) == [2, 4, 7])
    }

    @Test func readingResumesOnTheLineAfterAnUnreadableOne() {
        let result = parse("user_id,receipt_data\n\"u1\"x,QUJD\nu\"2,QUJD\nu3,QUJD\n", format: .csv)
        #expect(result.problems.map(\.line) == [2, 3])
        #expect(result.rows == [row(4, "u3")])
    }

    @Test func invalidUTF8IsAnUnreadableLine() {
        var data = Data("user_id,receipt_data\nu1,QUJD\nu".utf8)
        data.append(contentsOf: [0xFF, 0xFE])
        data.append(contentsOf: Array(",QUJD\n\"u".utf8) + [0xC3] + Array("\",QUJD\nu4,QUJD\n".utf8))
        let result = parse(data, format: .csv)
        #expect(result.problems.map(\.description) == [
            "receipts.csv:3: the line is not valid UTF-8",
            "receipts.csv:4: the line is not valid UTF-8",
        ])
        #expect(result.rows == [row(2, "u1"), row(5, "u4")])
    }

    @Test(arguments: [
        ParseCase(name: "empty file", input: "",
                  problems: ["receipts.csv:1: the file is empty; \(headerUsage)"]),
        ParseCase(name: "byte-order mark only", input: "\u{FEFF}",
                  problems: ["receipts.csv:1: the file is empty; \(headerUsage)"]),
        ParseCase(name: "blank first line", input: "\nuser_id,receipt_data\nu1,QUJD\n",
                  problems: ["receipts.csv:1: \(headerUsage), but line 1 is empty"]),
        ParseCase(name: "misspelt column", input: "user_id,receipt_data,enviroment\nu1,QUJD,Sandbox\n", problems: [
            "receipts.csv:1: the header names an unknown column \"enviroment\"; the columns are \(columnList)",
        ]),
        ParseCase(name: "missing required column", input: "user_id,product_id\nu1,p\n",
                  problems: ["receipts.csv:1: the header lacks the required column receipt_data"]),
        ParseCase(name: "duplicate column", input: "user_id,receipt_data,User_Id\nu1,QUJD,u1\n",
                  problems: ["receipts.csv:1: the header names the column user_id twice"]),
        ParseCase(name: "unnamed column", input: "user_id,receipt_data,\nu1,QUJD,\n",
                  problems: ["receipts.csv:1: column 3 of the header has no name"]),
        ParseCase(name: "no header at all", input: "u1,QUJD\nu2,QUJD\n", problems: [
            "receipts.csv:1: the header names an unknown column \"u1\"; the columns are \(columnList); "
                + "the header names an unknown column \"QUJD\"; the columns are \(columnList); "
                + "the header lacks the required column user_id; the header lacks the required column receipt_data",
        ]),
        ParseCase(name: "unreadable header", input: "user_id,\"receipt_data\nu1,QUJD\n",
                  problems: ["receipts.csv:1: a quoted field on this record is never closed"]),
    ])
    fileprivate func badHeader(_ testCase: ParseCase) {
        let result = parse(testCase.input, format: .csv)
        #expect(result.problems.map(\.description) == testCase.problems)
        #expect(result.rows.isEmpty)
    }
}

@Suite("ImportFileParser: JSON Lines")
struct ImportFileParserJSONLinesTests {
    @Test(arguments: [
        ParseCase(name: "required keys only",
                  input: #"{"user_id":"u1","receipt_data":"QUJD"}"# + "\n" + #"{"receipt_data":"QUJDRA==","user_id":"u2"}"#,
                  rows: [row(1, "u1"), row(2, "u2", "QUJDRA==")]),
        ParseCase(name: "optional keys, nulls and empty strings",
                  input: """
                  {"user_id":"u1","receipt_data":"QUJD","product_id":"com.example.monthly","environment":"Production"}
                  {"user_id":"u2","receipt_data":" QUJD\\n","product_id":null,"environment":null}
                  {"user_id":"u3","receipt_data":"QUJD","product_id":"","environment":"sandbox"}
                  """,
                  rows: [row(1, "u1", product: "com.example.monthly", environment: .production),
                         row(2, "u2"), row(3, "u3", environment: .sandbox)]),
        ParseCase(name: "blank lines skipped but counted, CRLF, surrounding whitespace",
                  input: "\n" + #"{"user_id":"u1","receipt_data":"QUJD"}"# + "\r\n  \r\n\t"
                      + #"{"user_id":"Zoë","receipt_data":"QUJD"}  "# + "\n\n",
                  rows: [row(2, "u1"), row(4, "Zoë")]),
        ParseCase(name: "byte-order mark", input: "\u{FEFF}" + #"{"user_id":"u1","receipt_data":"QUJD"}"#,
                  rows: [row(1, "u1")]),
        ParseCase(name: "empty file", input: ""),
        ParseCase(name: "only blank lines", input: "\n \n\r\n"),
        ParseCase(name: "escapes decoded", input: #"{"user_id":"u\u00e9\"1","receipt_data":"QUJD"}"#,
                  rows: [row(1, "ué\"1")]),
    ])
    fileprivate func goodFiles(_ testCase: ParseCase) {
        let result = parse(testCase.input, format: .jsonl)
        #expect(result.problems.map(\.description) == testCase.problems)
        #expect(result.rows == testCase.rows)
    }

    @Test(arguments: [
        ParseCase(name: "not JSON", input: "{user_id: \"u1\"}", problems: ["receipts.jsonl:1: the line is not valid JSON"]),
        ParseCase(name: "truncated", input: #"{"user_id":"u1""#, problems: ["receipts.jsonl:1: the line is not valid JSON"]),
        ParseCase(name: "trailing garbage", input: #"{"user_id":"u1","receipt_data":"QUJD"} x"#,
                  problems: ["receipts.jsonl:1: the line is not valid JSON"]),
        ParseCase(name: "two objects on one line",
                  input: #"{"user_id":"u1","receipt_data":"QUJD"}{"user_id":"u2","receipt_data":"QUJD"}"#,
                  problems: ["receipts.jsonl:1: the line is not valid JSON"]),
        ParseCase(name: "array", input: #"[{"user_id":"u1"}]"#,
                  problems: ["receipts.jsonl:1: the line is an array, not a JSON object"]),
        ParseCase(name: "string", input: #""u1""#, problems: ["receipts.jsonl:1: the line is a string, not a JSON object"]),
        ParseCase(name: "number", input: "42", problems: ["receipts.jsonl:1: the line is a number, not a JSON object"]),
        ParseCase(name: "null", input: "null", problems: ["receipts.jsonl:1: the line is null, not a JSON object"]),
        ParseCase(name: "numeric user_id", input: #"{"user_id":42,"receipt_data":"QUJD"}"#,
                  problems: ["receipts.jsonl:1: user_id must be a string, not a number"]),
        ParseCase(name: "boolean environment", input: #"{"user_id":"u1","receipt_data":"QUJD","environment":true}"#,
                  problems: ["receipts.jsonl:1: environment must be a string, not a boolean"]),
        ParseCase(name: "object product_id", input: #"{"user_id":"u1","receipt_data":"QUJD","product_id":{"id":1}}"#,
                  problems: ["receipts.jsonl:1: product_id must be a string, not an object"]),
        ParseCase(name: "array receipt_data", input: #"{"user_id":"u1","receipt_data":["QUJD"]}"#,
                  problems: ["receipts.jsonl:1: receipt_data must be a string, not an array"]),
        ParseCase(name: "missing receipt_data", input: #"{"user_id":"u1"}"#,
                  problems: ["receipts.jsonl:1: receipt_data is missing"]),
        ParseCase(name: "null user_id", input: #"{"user_id":null,"receipt_data":"QUJD"}"#,
                  problems: ["receipts.jsonl:1: user_id is missing"]),
        ParseCase(name: "empty object", input: "{}",
                  problems: ["receipts.jsonl:1: user_id is missing; receipt_data is missing"]),
        ParseCase(name: "empty user_id", input: #"{"user_id":"","receipt_data":"QUJD"}"#,
                  problems: ["receipts.jsonl:1: user_id is empty"]),
        ParseCase(name: "bad base64", input: #"{"user_id":"u1","receipt_data":"QUJD\nQUJD"}"#, problems: [
            "receipts.jsonl:1: receipt_data is not base64: character 5 is a line break, which is not in the base64 alphabet",
        ]),
        ParseCase(name: "bad environment", input: #"{"user_id":"u1","receipt_data":"QUJD","environment":"live"}"#,
                  problems: ["receipts.jsonl:1: environment must be Production or Sandbox, not \"live\""]),
        ParseCase(name: "misspelt key", input: #"{"user_id":"u1","receipt_data":"QUJD","enviroment":"Sandbox"}"#,
                  problems: ["receipts.jsonl:1: unknown key \"enviroment\"; the keys are \(columnList)"]),
    ])
    fileprivate func badLines(_ testCase: ParseCase) {
        let result = parse(testCase.input + "\n", format: .jsonl)
        #expect(result.problems.map(\.description) == testCase.problems)
        #expect(result.rows.isEmpty)
    }

    @Test func everyBadLineIsReported() {
        let input = """
        {"user_id":"u1","receipt_data":"QUJD"}
        {"user_id":"","receipt_data":"QUJD"}

        not json
        {"user_id":"u5","receipt_data":"QUJD"}
        {"user_id":"u6","receipt_data":"Q"}
        """
        let result = parse(input, format: .jsonl)
        #expect(result.problems.map(\.description) == [
            "receipts.jsonl:2: user_id is empty",
            "receipts.jsonl:4: the line is not valid JSON",
            "receipts.jsonl:6: receipt_data is not base64: its length, 1 character, is not a multiple of 4",
        ])
        #expect(result.rows.map(\.line) == [1, 5])
    }

    @Test func invalidUTF8IsReportedAsSuch() {
        var data = Data(#"{"user_id":"u"#.utf8)
        data.append(0xFF)
        data.append(contentsOf: Array(#"","receipt_data":"QUJD"}"#.utf8) + [0x0A])
        data.append(contentsOf: Array(#"{"user_id":"u2","receipt_data":"QUJD"}"#.utf8))
        let result = parse(data, format: .jsonl)
        #expect(result.problems.map(\.description) == ["receipts.jsonl:1: the line is not valid UTF-8"])
        #expect(result.rows == [row(2, "u2")])
    }
}

@Suite("ImportFileParser: receipt rules and formats")
struct ImportFileParserRulesTests {
    @Test func receiptSizeLimit() {
        let limited = parse("user_id,receipt_data\nu1,QUJDQUJD\nu2,QUJDQUJDQUJD\n", format: .csv, maxReceiptBytes: 8)
        #expect(limited.problems.map(\.description) == [
            "receipts.csv:3: receipt_data is 12 bytes, over the limit of 8 bytes",
        ])
        #expect(limited.rows == [row(2, "u1", "QUJDQUJD")])
    }

    @Test func defaultLimitIsOneMebibyte() {
        let atLimit = String(repeating: "QUJD", count: (1 << 20) / 4)
        let overLimit = atLimit + "QUJD"
        let input = "user_id,receipt_data\nu1,\(atLimit)\nu2,\(overLimit)\n"
        for format in ImportFormat.allCases {
            let text = format == .csv ? input
                : #"{"user_id":"u1","receipt_data":"\#(atLimit)"}"# + "\n" + #"{"user_id":"u2","receipt_data":"\#(overLimit)"}"#
            let result = parse(text, format: format, sourceName: "big")
            #expect(result.problems.map(\.description) == [
                "big:\(format == .csv ? 3 : 2): receipt_data is 1048580 bytes, over the limit of 1048576 bytes",
            ])
            #expect(result.rows.map(\.receiptData.utf8.count) == [1 << 20])
        }
    }

    @Test func problemsCarryTheSourceNameLineAndReason() {
        let parser = ImportFileParser(format: .jsonl, sourceName: ImportFileParser.standardInputSourceName)
        let result = parser.parse(Data("\n\n{}\n".utf8))
        #expect(result.problems == [
            ImportProblem(sourceName: "<stdin>", line: 3, reason: "user_id is missing; receipt_data is missing"),
        ])
        #expect(result.problems.first?.description == "<stdin>:3: user_id is missing; receipt_data is missing")
    }

    @Test func base64AcceptsEverythingFoundationEncodes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            guard !encoded.isEmpty else { continue }
            #expect(ImportFileParser.base64Problem(encoded) == nil, "\(encoded)")
        }
    }

    @Test func base64IsNoMoreLenientThanFoundation() {
        // Every string of length 1...4 over a small alphabet that includes padding and a stranger.
        // Foundation's decoder is the lenient one (it takes "QQ=Q" and "===="), so the check is one-way:
        // whatever we accept, Foundation decodes.
        let alphabet: [Character] = ["Q", "A", "=", "/", "-"]
        var strings = alphabet.map { String($0) }
        var frontier = strings
        for _ in 2...4 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + String($0) } }
            strings += frontier
        }
        var accepted = 0
        for string in strings where ImportFileParser.base64Problem(string) == nil {
            accepted += 1
            #expect(Data(base64Encoded: string) != nil, "\(string)")
        }
        // Three data characters (Q, A, /): the shapes "xxxx", "xxx=" and "xx==".
        #expect(accepted == 3 * 3 * 3 * 3 + 3 * 3 * 3 + 3 * 3)
        for string in ["QQ=Q", "Q=Q=", "====", "Q===", "=QQQ", "QQ-Q", "QQQ"] {
            #expect(ImportFileParser.base64Problem(string) != nil, "\(string)")
        }
    }

    @Test(arguments: [
        ("receipts.csv", ImportFormat.csv), ("/var/in/EXPORT.CSV", .csv), ("a.jsonl", .jsonl), ("a.ndjson", .jsonl),
        ("dir.csv/file", nil), ("a.json", nil), ("receipts", nil), ("-", nil), ("csv", nil),
    ])
    func formatFromPath(path: String, expected: ImportFormat?) {
        #expect(ImportFormat.inferred(fromPath: path) == expected)
    }

    @Test(arguments: [
        ("{\"user_id\":\"u1\"}", ImportFormat.jsonl), ("\n  \r\n{", .jsonl), ("\u{FEFF}{", .jsonl),
        ("user_id,receipt_data\n", .csv), ("\"user_id\",receipt_data", .csv), ("", .csv), ("[1]", .csv),
    ])
    func formatFromContent(content: String, expected: ImportFormat) {
        #expect(ImportFormat.sniffed(from: Data(content.utf8)) == expected)
    }

    @Test func resolvedFormatPrefersFlagThenExtensionThenContent() {
        let json = Data("{}".utf8)
        #expect(ImportFormat.resolved(explicit: .csv, path: "a.jsonl", data: json) == .csv)
        #expect(ImportFormat.resolved(explicit: nil, path: "a.csv", data: json) == .csv)
        #expect(ImportFormat.resolved(explicit: nil, path: "-", data: json) == .jsonl)
        #expect(ImportFormat.resolved(explicit: nil, path: "receipts.txt", data: Data("user_id".utf8)) == .csv)
    }
}

@Suite struct ImportTransactionIDTests {
    @Test func aTransactionIDColumnIsReadFromCSVAndJSONLines() throws {
        let csv = ImportFileParser(format: .csv, sourceName: "t.csv").parse(
            Data("user_id,receipt_data,transaction_id\nu1,QUJD,2000000123456789\nu2,QUJD,\n".utf8))
        #expect(csv.problems.isEmpty)
        #expect(csv.rows.map(\.transactionID) == ["2000000123456789", nil])
        let jsonl = ImportFileParser(format: .jsonl, sourceName: "t.jsonl").parse(
            Data(#"{"user_id":"u1","receipt_data":"QUJD","transaction_id":"42"}"#.utf8))
        #expect(jsonl.rows.first?.transactionID == "42")
    }

    @Test func aTransactionIDThatIsNotDigitsIsABadRow() {
        let result = ImportFileParser(format: .csv, sourceName: "t.csv").parse(
            Data("user_id,receipt_data,transaction_id\nu1,QUJD,12ab\n".utf8))
        #expect(result.rows.isEmpty)
        #expect(result.problems.first?.reason.contains("transaction_id must be") == true)
    }
}

@Suite struct ImportTransactionIDOnlyTests {
    static let csv = Data("user_id,receipt_data,transaction_id\nu1,,2000000123456789\n".utf8)

    @Test func aRowWithOnlyATransactionIDIsRefusedInVerifyReceiptMode() {
        let result = ImportFileParser(format: .csv, sourceName: "t.csv").parse(Self.csv)
        #expect(result.rows.isEmpty)
        #expect(result.problems.first?.description.contains("t.csv:2: receipt_data is empty") == true)
        #expect(result.problems.first?.description.contains("server-api") == true)
    }

    @Test func aRowWithOnlyATransactionIDIsAcceptedInServerAPIMode() {
        let result = ImportFileParser(format: .csv, sourceName: "t.csv", acceptsTransactionIDOnly: true).parse(Self.csv)
        #expect(result.problems.isEmpty)
        #expect(result.rows.first?.receiptData == "")
        #expect(result.rows.first?.transactionID == "2000000123456789")
    }

    @Test func aRowWithNeitherIsStillBad() {
        let result = ImportFileParser(format: .csv, sourceName: "t.csv", acceptsTransactionIDOnly: true)
            .parse(Data("user_id,receipt_data,transaction_id\nu1,,\n".utf8))
        #expect(result.rows.isEmpty)
        #expect(result.problems.count == 1)
    }

    /// Issue 34 (item 7): a CSV without a receipt_data column reads as JSON Lines without the key.
    @Test(arguments: [true, false]) func aCSVWithoutReceiptDataAcceptsAndRefusesExactlyWhatJSONLinesDoes(serverAPI: Bool) {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let cases: [(csv: String, jsonl: String)] = [
            ("user_id,transaction_id\nu1,2000000123456789\nu2,\nu3,12ab\n",
             #"{"user_id":"u1","transaction_id":"2000000123456789"}"# + "\n" + #"{"user_id":"u2","transaction_id":""}"#
                + "\n" + #"{"user_id":"u3","transaction_id":"12ab"}"# + "\n"),
            ("user_id,app_account_token\nu1,\(token)\nu2,nope\n",
             #"{"user_id":"u1","app_account_token":"\#(token)"}"# + "\n" + #"{"user_id":"u2","app_account_token":"nope"}"# + "\n"),
            ("user_id,transaction_id,app_account_token\nu1,,\(token)\n,42,\n",
             #"{"user_id":"u1","app_account_token":"\#(token)"}"# + "\n" + #"{"user_id":"","transaction_id":"42"}"# + "\n"),
        ]
        for (csvText, jsonText) in cases {
            let csv = ImportFileParser(format: .csv, sourceName: "f", acceptsTransactionIDOnly: serverAPI).parse(Data(csvText.utf8))
            let jsonl = ImportFileParser(format: .jsonl, sourceName: "f", acceptsTransactionIDOnly: serverAPI).parse(Data(jsonText.utf8))
            // CSV lines are one further down: the header.
            #expect(csv.problems.map { "\($0.line - 1): \($0.reason)" } == jsonl.problems.map { "\($0.line): \($0.reason)" })
            #expect(csv.rows.map(\.userID) == jsonl.rows.map(\.userID))
            #expect(csv.rows.map(\.transactionID) == jsonl.rows.map(\.transactionID))
            #expect(csv.rows.map(\.appAccountToken) == jsonl.rows.map(\.appAccountToken))
            if serverAPI { #expect(!csv.rows.isEmpty) } else { #expect(csv.rows.isEmpty) }
        }
    }

    @Test func aCSVHeaderWithNoColumnThatCanIdentifyAPurchaseIsRefused() {
        let result = ImportFileParser(format: .csv, sourceName: "t.csv", acceptsTransactionIDOnly: true)
            .parse(Data("user_id,product_id\nu1,p\n".utf8))
        #expect(result.problems.map(\.description) == ["t.csv:1: the header lacks the required column receipt_data"])
    }

    // MARK: - Several apps: bundle_id

    static let appsCSV = Data("""
        user_id,receipt_data,bundle_id
        u1,QUJD,com.example.news
        u2,QUJD,
        u3,QUJD,com.example.games
        u4,QUJD, com.example.cooking \n
        """.utf8)

    @Test func withSeveralAppsEveryRowNamesOneOfThem() {
        let result = ImportFileParser(format: .csv, sourceName: "r.csv", apps: ["com.example.news", "com.example.cooking"])
            .parse(Self.appsCSV)
        #expect(result.rows.map(\.userID) == ["u1", "u4"])
        #expect(result.rows.map(\.bundleID) == ["com.example.news", "com.example.cooking"])
        #expect(result.problems.map(\.description) == [
            "r.csv:3: bundle_id is missing: with several apps (the apps file) every row names its app, one of com.example.news, com.example.cooking",
            "r.csv:4: bundle_id \"com.example.games\" is not an app of the apps file (com.example.news, com.example.cooking)",
        ])
    }

    @Test func withOneConfiguredAppARowMayNameItOrNone() {
        let result = ImportFileParser(format: .csv, sourceName: "r.csv", apps: ["com.example.news"]).parse(Self.appsCSV)
        #expect(result.rows.map(\.userID) == ["u1", "u2"])
        #expect(result.rows.map(\.bundleID) == ["com.example.news", nil])
        #expect(result.problems.map(\.line) == [4, 5])
        #expect(result.problems.first?.reason == "bundle_id \"com.example.games\" is not the configured app (com.example.news)")
    }

    @Test func withNoAppConfiguredAnyBundleIDIsKept() {
        let result = ImportFileParser(format: .csv, sourceName: "r.csv").parse(Self.appsCSV)
        #expect(result.problems.isEmpty)
        #expect(result.rows.map(\.bundleID) == ["com.example.news", nil, "com.example.games", "com.example.cooking"])
    }

    @Test func jsonLinesCarryTheBundleIDToo() {
        let lines = Data("""
            {"user_id": "u1", "receipt_data": "QUJD", "bundle_id": "com.example.news"}
            {"user_id": "u2", "receipt_data": "QUJD", "bundle_id": 5}
            """.utf8)
        let result = ImportFileParser(format: .jsonl, sourceName: "r.jsonl", apps: ["com.example.news", "com.b"]).parse(lines)
        #expect(result.rows.map(\.bundleID) == ["com.example.news"])
        #expect(result.problems.map(\.description) == ["r.jsonl:2: bundle_id must be a string, not a number"])
    }

    @Test func aTransactionOnlyRowNeedsAServerAPIApp() {
        let data = Data("""
            user_id,receipt_data,transaction_id,bundle_id
            u1,,2000000123456789,com.example.news
            u2,,2000000123456790,com.example.cooking
            """.utf8)
        let result = ImportFileParser(
            format: .csv, sourceName: "t.csv", apps: ["com.example.news", "com.example.cooking"],
            serverAPIApps: ["com.example.news"]
        ).parse(data)
        #expect(result.rows.map(\.userID) == ["u1"])
        #expect(result.problems.map(\.description) == [
            "t.csv:3: receipt_data is empty: a row with only a transaction_id can be checked only for an app whose apple_api is server-api"
        ])
    }

    // MARK: - app_account_token

    @Test func aTokenIsAUUIDAndIsLowerCased() {
        let data = Data("""
            user_id,receipt_data,app_account_token
            u1,QUJD,7E3FB20B-4CDB-47CC-936D-99D65F608138
            u2,QUJD,not-a-uuid
            """.utf8)
        let result = ImportFileParser(format: .csv, sourceName: "t.csv").parse(data)
        #expect(result.rows.map(\.appAccountToken) == ["7e3fb20b-4cdb-47cc-936d-99d65f608138"])
        #expect(result.problems.map(\.description) == [
            "t.csv:3: app_account_token must be a UUID (8-4-4-4-12 hex digits), not \"not-a-uuid\""
        ])
    }

    @Test func aTokenAloneRegistersItInServerAPIModeOnly() {
        let data = Data("""
            user_id,receipt_data,app_account_token
            u1,,7e3fb20b-4cdb-47cc-936d-99d65f608138
            """.utf8)
        let serverAPI = ImportFileParser(format: .csv, sourceName: "t.csv", acceptsTransactionIDOnly: true).parse(data)
        #expect(serverAPI.problems.isEmpty)
        #expect(serverAPI.rows.first?.registersTokenOnly == true)
        let verifyReceipt = ImportFileParser(format: .csv, sourceName: "t.csv").parse(data)
        #expect(verifyReceipt.rows.isEmpty)
        #expect(verifyReceipt.problems.first?.reason.hasPrefix("a row with only an app_account_token registers the token") == true)
    }
}

/// Issue 34 (item 16): the reader keeps lines up to the limit byte for byte and only counts longer ones.
@Suite struct ImportFileReaderTests {
    @Test func linesOverTheLimitAreEmptiedAndCountedTheRestKeptExactly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = "header\r\n0123456789\n01234567890\n\nlast" + String(repeating: "x", count: 3 * ImportFileReader.chunkBytes) + "\nend"
        try text.write(toFile: path, atomically: true, encoding: .utf8)

        let contents = try ImportFileReader(maxLineBytes: 10).contents(ofPath: path)

        #expect(String(decoding: contents.data, as: UTF8.self) == "header\r\n0123456789\n\n\n\nend")
        #expect(contents.overlong == [.init(line: 3, bytes: 11), .init(line: 5, bytes: 4 + 3 * ImportFileReader.chunkBytes)])
    }

    @Test func aMissingFileIsSaidSo() {
        #expect(throws: ImportFileReader.ReadError.self) { try ImportFileReader(maxLineBytes: 10).contents(ofPath: "/nonexistent/x.csv") }
    }
}
