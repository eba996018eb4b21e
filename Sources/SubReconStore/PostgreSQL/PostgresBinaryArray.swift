import PostgresNIO

/// A one-dimensional array in PostgreSQL's binary form, read element by element: a header
/// (dimensions, null flag, element type, then length and lower bound), then each element as a
/// 4-byte length (-1: NULL) and its bytes.
package struct PostgresBinaryArray {
    private var buffer: ByteBuffer
    package private(set) var count: Int

    package init(_ bytes: ByteBuffer?) throws {
        guard var buffer = bytes, let dimensions = buffer.readInteger(as: Int32.self),
            buffer.readInteger(as: Int32.self) != nil, buffer.readInteger(as: UInt32.self) != nil
        else { throw StoreError.failed(operation: "reading the ledger", reason: "an array is malformed") }
        switch dimensions {
        case 0: count = 0
        case 1:
            guard let length = buffer.readInteger(as: Int32.self), buffer.readInteger(as: Int32.self) != nil, length >= 0 else {
                throw StoreError.failed(operation: "reading the ledger", reason: "an array is malformed")
            }
            count = Int(length)
        default: throw StoreError.failed(operation: "reading the ledger", reason: "an array has \(dimensions) dimensions")
        }
        self.buffer = buffer
    }

    /// The next element's bytes; nil for NULL (or past the end).
    package mutating func nextBytes() -> ByteBuffer? { next() }

    private mutating func next() -> ByteBuffer? {
        guard let length = buffer.readInteger(as: Int32.self), length >= 0 else { return nil }
        return buffer.readSlice(length: Int(length))
    }

    package mutating func nextText() -> String? { next().map { String(buffer: $0) } }

    package mutating func nextInteger() throws -> Int64? {
        guard var bytes = next() else { return nil }
        guard bytes.readableBytes == 8, let value = bytes.readInteger(as: Int64.self) else {
            throw StoreError.failed(operation: "reading the ledger", reason: "a BIGINT is not 8 bytes")
        }
        return value
    }
}
