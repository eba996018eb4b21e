import Foundation

/// Reads an import file (or standard input) in chunks, keeping at most `maxLineBytes` of any one
/// line: a longer line is counted, not kept, and reported, so a stray multi-hundred-megabyte line
/// costs neither that memory nor the time to parse it. The lines that fit are handed to the
/// parser exactly as they were; an over-long line is left there as an empty line, so every later
/// line keeps its number.
struct ImportFileReader {
    /// A line longer than the limit: where it is and how long it was (without its line break).
    struct OverlongLine: Equatable {
        var line: Int
        var bytes: Int
    }

    /// The file's lines, over-long ones emptied, and those lines.
    struct Contents {
        var data: Data
        var overlong: [OverlongLine]
    }

    /// Why a file could not be read.
    struct ReadError: Error {
        var reason: String
    }

    /// Bytes read at a time.
    static let chunkBytes = 1 << 20

    /// The longest line kept. A good line holds one receipt (at most `maxReceiptBytes` of base64)
    /// and a few short fields; twice that leaves room for JSON escaping without bounding memory
    /// any less.
    static func maxLineBytes(maxReceiptBytes: Int) -> Int { 2 * maxReceiptBytes + 64 * 1024 }

    let maxLineBytes: Int

    /// Reads `path`, or standard input for `-`.
    func contents(ofPath path: String) throws(ReadError) -> Contents {
        if path == "-" { return try contents(of: STDIN_FILENO) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReadError(reason: errno == ENOENT ? "no such file" : "permission denied or not a regular file")
        }
        defer { close(descriptor) }
        return try contents(of: descriptor)
    }

    private func contents(of descriptor: Int32) throws(ReadError) -> Contents {
        var contents = Contents(data: Data(), overlong: [])
        var chunk = [UInt8](repeating: 0, count: Self.chunkBytes)
        var line = 1
        var lineStart = 0  // where the current line began in `contents.data`
        var lineBytes = 0  // the current line's length so far, kept or not
        var discarding = false
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: errno == EISDIR ? "permission denied or not a regular file" : String(cString: strerror(errno)))
            }
            if count == 0 { break }
            chunk.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                var position = 0
                while position < count {
                    let found = memchr(base + position, Int32(UInt8(ascii: "\n")), count - position)
                    let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? count
                    let segment = end - position
                    lineBytes += segment
                    if !discarding {
                        if lineBytes > maxLineBytes {
                            // Stop keeping this line: what is already kept of it goes too.
                            contents.data.removeSubrange(lineStart...)
                            discarding = true
                        } else {
                            contents.data.append(base.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: segment)
                        }
                    }
                    guard end < count else { break }
                    if discarding { contents.overlong.append(OverlongLine(line: line, bytes: lineBytes)) }
                    discarding = false
                    contents.data.append(UInt8(ascii: "\n"))
                    line += 1
                    lineBytes = 0
                    lineStart = contents.data.count
                    position = end + 1
                }
            }
        }
        if discarding { contents.overlong.append(OverlongLine(line: line, bytes: lineBytes)) }
        return contents
    }
}
