
/// A strict RFC 4180 record reader over bytes, for import files.
///
/// - Fields are separated by `,`; records end with `\n` or `\r\n` (or the end of the input).
/// - A quoted field may contain `,`, `\r`, `\n` and doubled quotes; its line breaks are counted so
///   every record knows the physical line it starts on.
/// - A UTF-8 byte-order mark at the very start is skipped.
/// - A quote inside an unquoted field, or anything but `,` or a line end after a closing quote, makes
///   the record unreadable; reading resumes at the next physical line. An unclosed quote swallows
///   the rest of the input, so it ends reading.
/// - Lines that are empty or only ASCII whitespace are reported as `.blank`, for the caller to skip.
///
/// One pass, no backtracking: linear in the input.
enum CSVRecordReader {
    /// What one record turned out to be.
    enum Content: Equatable {
        case fields([String])
        case blank
        case unreadable(String)
    }

    static let unclosedQuoteReason = "a quoted field on this record is never closed"
    static let textAfterClosingQuoteReason =
        "a closing quote must be followed by a comma or the end of the line"
    static let quoteInUnquotedFieldReason =
        "a quote appears inside an unquoted field; quote the whole field and double any quotes in it"
    static let invalidUTF8Reason = "the line is not valid UTF-8"

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// Calls `body` with each record's starting line (1-based) and content, in order.
    static func forEachRecord(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Int, Content) -> Void) {
        let count = bytes.count
        var index = 0
        var line = 1
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }

        /// Moves past the rest of the current physical line, after an unreadable record.
        func skipToNextLine() {
            while index < count, bytes[index] != lineFeed { index += 1 }
            if index < count {
                index += 1
                line += 1
            }
        }

        while index < count {
            let recordLine = line
            var fields: [String] = []
            var failure: String?
            var invalidUTF8 = false
            var sawQuotedField = false

            fieldLoop: while true {
                if index < count, bytes[index] == quote {
                    sawQuotedField = true
                    index += 1
                    var value: [UInt8] = []
                    var closed = false
                    while index < count {
                        var end = index
                        while end < count, bytes[end] != quote {
                            if bytes[end] == lineFeed { line += 1 }
                            end += 1
                        }
                        value.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                        guard end < count else {
                            index = end
                            break
                        }
                        if end + 1 < count, bytes[end + 1] == quote {
                            value.append(quote)
                            index = end + 2
                        } else {
                            index = end + 1
                            closed = true
                            break
                        }
                    }
                    guard closed else {
                        body(recordLine, .unreadable(unclosedQuoteReason))
                        return
                    }
                    if let string = String(validating: value, as: UTF8.self) {
                        fields.append(string)
                    } else {
                        invalidUTF8 = true
                    }
                    if index == count { break fieldLoop }
                    switch bytes[index] {
                    case comma:
                        index += 1
                    case lineFeed:
                        index += 1
                        line += 1
                        break fieldLoop
                    case carriageReturn where index + 1 == count:
                        index += 1
                        break fieldLoop
                    case carriageReturn where bytes[index + 1] == lineFeed:
                        index += 2
                        line += 1
                        break fieldLoop
                    default:
                        failure = textAfterClosingQuoteReason
                        skipToNextLine()
                        break fieldLoop
                    }
                } else {
                    let start = index
                    while index < count {
                        let byte = bytes[index]
                        if byte == comma || byte == lineFeed || byte == quote { break }
                        index += 1
                    }
                    if index < count, bytes[index] == quote {
                        failure = quoteInUnquotedFieldReason
                        skipToNextLine()
                        break fieldLoop
                    }
                    var end = index
                    let endsRecord = index == count || bytes[index] == lineFeed
                    if endsRecord, end > start, bytes[end - 1] == carriageReturn { end -= 1 }
                    if let string = String(
                        validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self
                    ) {
                        fields.append(string)
                    } else {
                        invalidUTF8 = true
                    }
                    if index == count { break fieldLoop }
                    index += 1
                    if endsRecord {
                        line += 1
                        break fieldLoop
                    }
                }
            }

            if let failure {
                body(recordLine, .unreadable(failure))
            } else if invalidUTF8 {
                body(recordLine, .unreadable(invalidUTF8Reason))
            } else if !sawQuotedField, fields.count == 1, fields[0].utf8.allSatisfy(ASCII.isWhitespace) {
                body(recordLine, .blank)
            } else {
                body(recordLine, .fields(fields))
            }
        }
    }
}
