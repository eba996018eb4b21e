import CompressNIO
import NIOCore
import SubReconModel

/// Reads a daily Summary Sales Report (`SALES`/`SUMMARY`/`DAILY`): gzip or plain tab-separated
/// text with one header line, columns found by name (``SalesReportColumn``), every cell trimmed
/// (Apple writes one space for an empty cell). A file is read whole or refused with the first
/// problem found (``SalesReportError``): nothing of a malformed file is half-used.
public enum SalesReportParser {
    /// The most a report may inflate to. A daily summary is kilobytes to a few megabytes; the
    /// limit stops a corrupt or hostile file from exhausting memory.
    public static let defaultMaxInflatedBytes = 256 * 1024 * 1024

    /// Parses `bytes` (gzip when they start with `1f 8b`, else text). `file` names the file in
    /// messages.
    public static func parse(
        _ bytes: [UInt8], file: String, maxInflatedBytes: Int = defaultMaxInflatedBytes
    ) throws(SalesReportError) -> SalesReport {
        func failure(_ line: Int, _ problem: SalesReportProblem) -> SalesReportError {
            SalesReportError(file: file, line: line, problem: problem)
        }
        let text: [UInt8]
        if bytes.count >= 2, bytes[0] == 0x1f, bytes[1] == 0x8b {
            text = try inflate(bytes, maxBytes: maxInflatedBytes, file: file)
        } else {
            guard bytes.count <= maxInflatedBytes else { throw failure(1, .tooLarge(limitBytes: maxInflatedBytes)) }
            text = bytes
        }
        guard let string = String(validating: text, as: UTF8.self) else { throw failure(1, .notUTF8) }
        return try parse(text: string, file: file)
    }

    /// Parses report text (already inflated).
    public static func parse(text: String, file: String) throws(SalesReportError) -> SalesReport {
        func failure(_ line: Int, _ problem: SalesReportProblem) -> SalesReportError {
            SalesReportError(file: file, line: line, problem: problem)
        }
        // "\r\n" is one Character in Swift, so both line ends are named.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        // Trailing empty lines (a final newline, or several) are not rows.
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        guard let headerLine = lines.first else { throw failure(1, .empty) }

        let header = headerLine.split(separator: "\t", omittingEmptySubsequences: false).map {
            SalesReportColumn.normalise(String($0))
        }
        let names = Set(header)
        if let other = SalesReportColumn.otherReports.first(where: { names.contains($0.name) }) {
            throw failure(1, .notSummarySalesReport(looksLike: other.report))
        }
        var index: [SalesReportColumn: Int] = [:]
        for (position, name) in header.enumerated() {
            // The first of two columns with one meaning wins; unknown columns are ignored.
            if let column = SalesReportColumn.aliases[name], index[column] == nil { index[column] = position }
        }
        let missing = SalesReportColumn.required.filter { index[$0] == nil }
        if missing.count == SalesReportColumn.required.count {
            throw failure(1, .notSummarySalesReport(looksLike: nil))
        }
        if let first = missing.first { throw failure(1, .missingColumn(first.rawValue)) }
        guard lines.count > 1 else { throw failure(1, .noRows) }

        var reportDay: CalendarDay?
        var rows: [SalesReportRow] = []
        rows.reserveCapacity(lines.count - 1)
        for (offset, line) in lines.enumerated().dropFirst() {
            let lineNumber = offset + 1
            guard !line.isEmpty else { throw failure(lineNumber, .blankLine) }
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cells.count >= header.count else {
                throw failure(lineNumber, .tooFewCells(expected: header.count, found: cells.count))
            }
            func cell(_ column: SalesReportColumn) -> String? {
                guard let position = index[column] else { return nil }
                return trim(cells[position])
            }
            func required(_ column: SalesReportColumn) throws(SalesReportError) -> String {
                let value = cell(column) ?? ""
                guard !value.isEmpty else { throw failure(lineNumber, .emptyCell(column: column.rawValue)) }
                return value
            }

            let beginText = try required(.beginDate)
            guard let begin = parseDate(beginText) else {
                throw failure(lineNumber, .badDate(column: SalesReportColumn.beginDate.rawValue, value: beginText))
            }
            if let endText = cell(.endDate), !endText.isEmpty {
                guard let end = parseDate(endText) else {
                    throw failure(lineNumber, .badDate(column: SalesReportColumn.endDate.rawValue, value: endText))
                }
                guard end == begin else { throw failure(lineNumber, .beginEndDiffer(begin: begin.text, end: end.text)) }
            }
            if let reportDay, reportDay != begin {
                throw failure(lineNumber, .mixedDates(reportDay: reportDay.text, rowDay: begin.text))
            }
            reportDay = begin

            let sku = try required(.sku)
            let productType = try required(.productTypeIdentifier)
            let unitsText = try required(.units)
            // Apple's Units are DECIMAL(18,2): whole numbers written as `1` or `1.00`.
            guard let unitsHundredths = parseDecimal(unitsText, decimals: 2) else {
                throw failure(lineNumber, .badNumber(column: SalesReportColumn.units.rawValue, value: unitsText))
            }
            guard unitsHundredths % 100 == 0 else { throw failure(lineNumber, .fractionalUnits(value: unitsText)) }
            let priceText = try required(.customerPrice)
            guard let price = parseDecimal(priceText, decimals: 3) else {
                throw failure(lineNumber, .badNumber(column: SalesReportColumn.customerPrice.rawValue, value: priceText))
            }
            let currency = try required(.customerCurrency)
            guard isUpperCaseCode(currency, length: 3) else { throw failure(lineNumber, .badCurrency(currency)) }
            let country = try required(.countryCode)
            guard isUpperCaseCode(country, length: 2) else { throw failure(lineNumber, .badCountry(country)) }
            var proceeds: Int64?
            if let proceedsText = cell(.developerProceeds), !proceedsText.isEmpty {
                guard let value = parseDecimal(proceedsText, decimals: 3) else {
                    throw failure(
                        lineNumber,
                        .badNumber(column: SalesReportColumn.developerProceeds.rawValue, value: proceedsText))
                }
                proceeds = value
            }
            rows.append(
                SalesReportRow(
                    line: lineNumber, sku: sku, productTypeIdentifier: productType, units: unitsHundredths / 100,
                    customerPriceMilliunits: price, customerCurrency: currency, countryCode: country,
                    subscription: cell(.subscription) ?? "", period: cell(.period) ?? "",
                    developerProceedsMilliunits: proceeds, orderType: cell(.orderType) ?? ""))
        }
        guard let reportDay else { throw failure(1, .noRows) }
        return SalesReport(day: reportDay, rows: rows)
    }

    /// `text` as an exact decimal scaled by 10^decimals: an optional sign, digits, and an optional
    /// fraction of at most `decimals` digits (`.99` and `-38.25` included). nil for anything else,
    /// more decimals than that, or a value beyond Int64.
    package static func parseDecimal(_ text: String, decimals: Int) -> Int64? {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var value: Int64 = 0
        var digitsSeen = 0
        var fractionDigits: Int?
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard fractionDigits == nil else { return nil }
                fractionDigits = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if let count = fractionDigits {
                guard count < decimals else { return nil }
                fractionDigits = count + 1
            }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            digitsSeen += 1
        }
        // At least one digit, and none missing after a point (`1.` is not a number Apple writes).
        guard digitsSeen > 0, fractionDigits != 0 else { return nil }
        for _ in 0..<(decimals - (fractionDigits ?? 0)) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = times
        }
        return negative ? -value : value
    }

    /// Apple writes `MM/DD/YYYY`; `yyyy-MM-dd` is accepted too.
    package static func parseDate(_ text: String) -> CalendarDay? {
        CalendarDay(appleReportText: text) ?? CalendarDay(text: text)
    }

    package static func isUpperCaseCode(_ text: String, length: Int) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    package static func trim(_ cell: Substring) -> String {
        String(cell.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    /// Inflates gzip data, refusing more than `maxBytes` of output.
    package static func inflate(_ bytes: [UInt8], maxBytes: Int, file: String) throws(SalesReportError) -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        let problem: SalesReportProblem
        do {
            var output = try buffer.decompress(with: .gzip(), maxSize: maxBytes)
            let inflated = output.readBytes(length: output.readableBytes) ?? []
            // CompressNIO returns what it could inflate from a truncated stream without an error,
            // so the gzip trailer is checked here: CRC-32 and length of the data (RFC 1952).
            if buffer.readableBytes == 0, bytes.count >= 18, trailerMatches(bytes, inflated) { return inflated }
            problem = .corruptGzip
        } catch let error as CompressNIOError where error == .bufferOverflow {
            problem = .tooLarge(limitBytes: maxBytes)
        } catch {
            problem = .corruptGzip
        }
        throw SalesReportError(file: file, line: 1, problem: problem)
    }

    /// Whether the last 8 bytes of a gzip file (CRC-32, then length mod 2^32, little-endian) are
    /// those of `inflated`.
    package static func trailerMatches(_ gzip: [UInt8], _ inflated: [UInt8]) -> Bool {
        func littleEndian(at index: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(gzip[index + $1]) << (8 * UInt32($1)) }
        }
        return littleEndian(at: gzip.count - 4) == UInt32(truncatingIfNeeded: inflated.count)
            && littleEndian(at: gzip.count - 8) == crc32(inflated)
    }

    /// CRC-32 (IEEE 802.3, reflected, as gzip uses).
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
        return crc ^ 0xffff_ffff
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xedb8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
