import FlyingSocks

/// A response body that yields some bytes and then fails, so FlyingFox sends the headers (with
/// the full Content-Length) and a partial body, then closes the connection: a truncated answer.
struct TruncatedBodySequence: AsyncBufferedSequence {
    typealias Element = UInt8

    struct Truncated: Error {}

    let prefix: [UInt8]

    func makeAsyncIterator() -> Iterator {
        Iterator(bytes: prefix)
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let bytes: [UInt8]
        var offset = 0

        mutating func next() async throws -> UInt8? {
            guard offset < bytes.count else { throw Truncated() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            guard offset < bytes.count else { throw Truncated() }
            let end = Swift.min(bytes.count, offset + Swift.max(1, count))
            defer { offset = end }
            return bytes[offset..<end]
        }
    }
}
