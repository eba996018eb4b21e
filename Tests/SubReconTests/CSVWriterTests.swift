import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import SubReconTestSupport
import Testing

@Suite("CSVWriter")
struct CSVWriterTests {
    /// Writes rows through a real writer (with its default threshold) and returns the output.
    private func csv(_ rows: [[String?]], flushThreshold: Int = CSVWriter.defaultFlushThreshold) throws -> String {
        var output = Data()
        var writer = CSVWriter(flushThreshold: flushThreshold) { output.append($0) }
        for row in rows { try writer.writeRow(row) }
        try writer.finish()
        return String(decoding: output, as: UTF8.self)
    }

    @Test func plainRowsAreCommaSeparatedWithLineFeeds() throws {
        let output = try csv([["user_id", "status"], ["u1", "active"], ["u2", "expired"]])
        #expect(output == "user_id,status\nu1,active\nu2,expired\n")
    }

    @Test("cells that need quoting", arguments: [
        ("a,b", #""a,b""#),
        (#"say "hi""#, #""say ""hi""""#),
        (#"""#, #""""""#),
        ("line1\nline2", "\"line1\nline2\""),
        ("cr\rinside", "\"cr\rinside\""),
        ("crlf\r\nend", "\"crlf\r\nend\""),
        ("\",\"", "\"\"\",\"\"\""),
    ])
    func quoting(cell: String, expected: String) {
        #expect(CSVWriter.encodeRow([cell]) == expected + "\n")
        #expect(CSVWriter.encodeRow(["x", cell, "y"]) == "x,\(expected),y\n")
    }

    @Test("formula-leading characters get a leading apostrophe", arguments: [
        ("=1+1", "'=1+1"),
        ("+15551234", "'+15551234"),
        ("-5x", "'-5x"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\tcmd", "'\tcmd"),
        ("=", "'="),
        // A guarded cell that also needs quoting: the apostrophe goes inside the quotes.
        ("\rcmd", "\"'\rcmd\""),
        ("=1,2", #""'=1,2""#),
        (#"=HYPERLINK("http://x")"#, #""'=HYPERLINK(""http://x"")""#),
        ("-a\nb", "\"'-a\nb\""),
        ("@x,y", #""'@x,y""#),
    ])
    func formulaGuard(cell: String, expected: String) {
        #expect(CSVWriter.encodeRow([cell]) == expected + "\n")
    }

    @Test("a cell that is exactly a decimal number is written as it is, negative or not", arguments: [
        "-49.99", "-5", "-0", "-0.000", "-1200", "0.0417", "9.99", "-9223372036854775808", "-00.10",
    ])
    func decimalNumbersAreNotGuarded(cell: String) {
        #expect(CSVWriter.encodeRow([cell]) == cell + "\n")
        #expect(CSVWriter.encodeRow(["x", cell]) == "x,\(cell)\n")
    }

    @Test("text that merely looks numeric at the start is still guarded", arguments: [
        ("-abc", "'-abc"),
        ("-", "'-"),
        ("-1.", "'-1."),
        ("-.5", "'-.5"),
        ("-1.2.3", "'-1.2.3"),
        ("-1e5", "'-1e5"),
        ("-1,5", #""'-1,5""#),
        ("- 1", "'- 1"),
        ("--1", "'--1"),
        ("-1 ", "'-1 "),
        ("-١", "'-١"),  // an Arabic-Indic digit is not [0-9]
        ("=1", "'=1"),
        ("+1", "'+1"),
        ("+1.5", "'+1.5"),
        ("@1", "'@1"),
        ("-5\n", "\"'-5\n\""),
    ])
    func numericLookingTextIsGuarded(cell: String, expected: String) {
        #expect(CSVWriter.encodeRow([cell]) == expected + "\n")
    }

    @Test("cells that only contain formula characters later are left alone", arguments: [
        "a=1", "1-2", "x+y", "me@example.com", " =1", "'=1", "2026-11-22T06:46:04Z", "1700000000000",
    ])
    func noGuardUnlessLeading(cell: String) {
        #expect(CSVWriter.encodeRow([cell]) == cell + "\n")
    }

    @Test func nilAndEmptyCellsAreEmpty() {
        #expect(CSVWriter.encodeRow([nil, "", "x", nil]) == ",,x,\n")
        #expect(CSVWriter.encodeRow([nil, nil]) == ",\n")
        // A lone empty cell is quoted so a reader does not mistake the row for a blank line.
        #expect(CSVWriter.encodeRow([nil]) == "\"\"\n")
        #expect(CSVWriter.encodeRow([""]) == "\"\"\n")
        #expect(CSVWriter.encodeRow([]) == "\n")
    }

    @Test func nonASCIIIsPreservedAsUTF8() throws {
        let output = try csv([["Zoë", "日本語", "🙂,x", "e\u{301}"]])
        #expect(output == "Zoë,日本語,\"🙂,x\",e\u{301}\n")
        #expect(Array(output.utf8) == Array("Zoë,日本語,\"🙂,x\",e\u{301}\n".utf8))
    }

    @Test func rowsReachTheSinkInWholeRowChunksOnceTheThresholdIsReached() throws {
        var chunks: [Data] = []
        var writer = CSVWriter(flushThreshold: 10) { chunks.append($0) }
        try writer.writeRow(["abc"])  // 4 bytes: stays buffered
        #expect(chunks.isEmpty)
        try writer.writeRow(["defgh"])  // 10 bytes: flushed
        #expect(chunks.map { String(decoding: $0, as: UTF8.self) } == ["abc\ndefgh\n"])
        try writer.writeRow(["i"])
        #expect(chunks.count == 1)
        try writer.finish()
        try writer.finish()  // a second finish has nothing left to write
        #expect(chunks.map { String(decoding: $0, as: UTF8.self) } == ["abc\ndefgh\n", "i\n"])
    }

    @Test func outputIsTheSameWhateverTheThreshold() throws {
        let rows: [[String?]] = (0..<500).map { ["u\($0)", "=\($0)", nil, "a,\"b\"\n\($0)"] }
        let reference = try csv(rows)
        for threshold in [1, 7, 100, 4096] {
            #expect(try csv(rows, flushThreshold: threshold) == reference)
        }
    }

    struct SinkFailure: Error {}

    @Test func sinkErrorsPropagate() throws {
        var writer = CSVWriter(flushThreshold: 1) { _ in throw SinkFailure() }
        #expect(throws: SinkFailure.self) { try writer.writeRow(["x"]) }

        var lazy = CSVWriter { _ in throw SinkFailure() }
        try lazy.writeRow(["x"])  // below the threshold: nothing written yet
        #expect(throws: SinkFailure.self) { try lazy.finish() }
    }

    @Test func writesToAFileHandle() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("csvwriter-\(UUID().uuidString).csv")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        var writer = CSVWriter(fileHandle: handle, flushThreshold: 8)
        try writer.writeRow(["user_id", "note"])
        try writer.writeRow(["u1", "a,b"])
        try writer.finish()
        try handle.close()
        #expect(try String(contentsOf: url, encoding: .utf8) == "user_id,note\nu1,\"a,b\"\n")
    }

    @Test func manyRowsRoundTripThroughAnRFC4180Reader() throws {
        // Fragments chosen to hit every rule, combined pseudo-randomly but reproducibly.
        let fragments = ["", "a", "Zoë", "🙂", ",", "\"", "\n", "\r", "\r\n", "=", "+", "-", "@", "\t", " ", "'",
                         "x y", "1700000000000", "é\u{301}", ".", "49.99"]
        var generator = SplitMix64(seed: 42)
        var rows: [[String?]] = []
        for _ in 0..<5_000 {
            let width = Int(generator.next() % 6) + 2
            rows.append((0..<width).map { _ -> String? in
                if generator.next() % 10 == 0 { return nil }
                let parts = Int(generator.next() % 4)
                return (0..<parts).map { _ in fragments[Int(generator.next() % UInt64(fragments.count))] }.joined()
            })
        }

        let parsed = try RFC4180TestReader.parse(csv(rows, flushThreshold: 1000))

        let expected = rows.map { row in row.map { cell -> String in
            let cell = cell ?? ""
            guard let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return cell }
            // A decimal number such as -1700000000000 is a number, not a formula.
            if cell.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?/) != nil { return cell }
            return "'" + cell
        } }
        #expect(parsed.count == expected.count)
        for (index, (got, want)) in zip(parsed, expected).enumerated() where got != want {
            Issue.record("row \(index): got \(got.debugDescription), want \(want.debugDescription)")
            break
        }
    }
}

/// A minimal, independent RFC 4180 reader (strict: quoted fields, doubled quotes, `\n` records),
/// working on Unicode scalars so that `\r\n` inside a cell is not merged into one Character.
private enum RFC4180TestReader {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        var atFieldStart = true
        while let scalar = pending {
            pending = scalars.next()
            if atFieldStart, scalar == "\"" {
                atFieldStart = false
                while true {
                    guard let inner = pending else { throw Malformed(description: "unclosed quote") }
                    pending = scalars.next()
                    if inner == "\"" {
                        if pending == "\"" {
                            field.append("\"")
                            pending = scalars.next()
                        } else {
                            break
                        }
                    } else {
                        field.append(inner)
                    }
                }
                guard pending == "," || pending == "\n" else {
                    throw Malformed(description: "text after closing quote")
                }
                continue
            }
            atFieldStart = false
            switch scalar {
            case ",":
                record.append(String(field))
                field = String.UnicodeScalarView()
                atFieldStart = true
            case "\n":
                record.append(String(field))
                records.append(record)
                record = []
                field = String.UnicodeScalarView()
                atFieldStart = true
            case "\"", "\r":
                throw Malformed(description: "\(scalar.escaped(asASCII: true)) in an unquoted field")
            default:
                field.append(scalar)
            }
        }
        guard record.isEmpty, field.isEmpty else { throw Malformed(description: "missing final line feed") }
        return records
    }
}
