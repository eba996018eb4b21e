import Foundation

/// Streams CSV (RFC 4180, UTF-8, `\n` line ends) to a sink, one row at a time.
///
/// Every report goes through this type; the caller writes the header row with ``writeRow(_:)``
/// like any other row. Rows are encoded into an internal byte buffer that is handed to the sink
/// whenever it reaches ``flushThreshold`` bytes, so a report of a million rows never sits in memory
/// whole. Call ``finish()`` once at the end to hand over the rest: a `struct` has no deinit to do
/// it for you.
///
/// Encoding rules, applied to every cell:
/// - A cell containing `,`, `"`, `\n` or `\r` is quoted, with each `"` doubled.
/// - Formula guard (the contract's, as docs/reports.md describes it): a cell that begins with `=`,
///   `+`, `-`, `@`, tab or carriage return gets a leading `'`, so a spreadsheet never evaluates it.
///   The one exception is a cell that is exactly a decimal number (`-?[0-9]+(\.[0-9]+)?`, such as
///   `-49.99`): the money reports write negative amounts, a spreadsheet reads such a cell as a
///   number and evaluates nothing, and `'-49.99` would turn it into text. `-abc`, `-`, `-1.`, `-.5` are still guarded.
///   The guard is decided per cell from its bytes, not per column, so no column can forget it.
/// - `nil` and `""` are both written as an empty cell. A row made of a single empty cell is
///   written as `""`, so a reader does not take it for a blank line.
///
/// If the sink throws, the error propagates from ``writeRow(_:)`` or ``finish()`` and the output
/// is incomplete; the writer should not be used further.
public struct CSVWriter {
    /// Receives encoded bytes, in order. Each call gets a whole number of rows.
    public typealias Sink = (Data) throws -> Void

    /// The buffer size at which rows are handed to the sink (64 KiB).
    public static let defaultFlushThreshold = 64 * 1024

    /// The buffer size, in bytes, at which rows are handed to the sink.
    public let flushThreshold: Int

    private let sink: Sink
    private var buffer: [UInt8] = []

    /// Creates a writer that hands encoded rows to `sink`.
    ///
    /// - Parameters:
    ///   - flushThreshold: buffered bytes that trigger a call to `sink`; at least 1.
    ///   - sink: receives the encoded bytes, in order.
    public init(flushThreshold: Int = CSVWriter.defaultFlushThreshold, sink: @escaping Sink) {
        self.flushThreshold = max(1, flushThreshold)
        self.sink = sink
        // Room for one threshold's worth plus a typical row, so the buffer rarely regrows.
        buffer.reserveCapacity(self.flushThreshold + 4096)
    }

    /// Creates a writer that writes to an open file handle (a file, or standard output).
    public init(fileHandle: FileHandle, flushThreshold: Int = CSVWriter.defaultFlushThreshold) {
        self.init(flushThreshold: flushThreshold) { data in
            try fileHandle.write(contentsOf: data)
        }
    }

    /// Encodes one row (`nil` becomes an empty cell) and flushes the buffer if it is full.
    public mutating func writeRow(_ cells: [String?]) throws {
        Self.appendRow(cells, to: &buffer)
        if buffer.count >= flushThreshold {
            try flush()
        }
    }

    /// Hands every buffered row to the sink. Call once after the last row; calling it again is
    /// harmless.
    public mutating func finish() throws {
        try flush()
    }

    /// Encodes one row, with its trailing `\n`, as a string. Meant for small outputs and tests;
    /// reports should stream through ``writeRow(_:)``.
    public static func encodeRow(_ cells: [String?]) -> String {
        var bytes: [UInt8] = []
        appendRow(cells, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        let chunk = Data(buffer)
        // Clear before calling out, so a throwing sink cannot make us write the chunk twice.
        buffer.removeAll(keepingCapacity: true)
        try sink(chunk)
    }

    // MARK: Encoding

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")
    private static let apostrophe = UInt8(ascii: "'")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    private static func appendRow(_ cells: [String?], to buffer: inout [UInt8]) {
        if cells.count == 1, (cells[0] ?? "").isEmpty {
            buffer.append(contentsOf: [quote, quote, lineFeed])
            return
        }
        for (index, cell) in cells.enumerated() {
            if index > 0 { buffer.append(comma) }
            if let cell { appendCell(cell, to: &buffer) }
        }
        buffer.append(lineFeed)
    }

    /// Whether `bytes` is exactly `-?[0-9]+(\.[0-9]+)?`: a number a spreadsheet shows as a number.
    private static func isDecimalNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = bytes.startIndex
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Bool {
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > start
        }
        guard digits() else { return false }
        if index == bytes.endIndex { return true }
        guard bytes[index] == UInt8(ascii: "."), index + 1 < bytes.endIndex else { return false }
        index += 1
        return digits() && index == bytes.endIndex
    }

    /// Scans the cell's UTF-8 bytes once to decide on quoting, then copies it in runs between
    /// quotes; no regex, no intermediate strings.
    private static func appendCell(_ cell: String, to buffer: inout [UInt8]) {
        var cell = cell
        cell.withUTF8 { bytes in
            guard let first = bytes.first else { return }
            let guarded: Bool
            switch first {
            case UInt8(ascii: "-"):
                guarded = !isDecimalNumber(bytes)
            case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "\t"), carriageReturn:
                guarded = true
            default:
                guarded = false
            }
            var needsQuotes = false
            for byte in bytes where byte == comma || byte == quote || byte == lineFeed || byte == carriageReturn {
                needsQuotes = true
                break
            }
            guard needsQuotes else {
                if guarded { buffer.append(apostrophe) }
                buffer.append(contentsOf: bytes)
                return
            }
            buffer.append(quote)
            if guarded { buffer.append(apostrophe) }
            var runStart = 0
            for index in 0..<bytes.count where bytes[index] == quote {
                // Copy up to and including this quote, then add the second one.
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...index]))
                buffer.append(quote)
                runStart = index + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            buffer.append(quote)
        }
    }
}
