import Foundation
@testable import AppleSignedData

/// Fixtures and hand-built BER for the app receipt tests.
enum AppReceiptFixture {
    static let folder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/app-receipts")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: try text(name)) else { throw CocoaError(.fileReadCorruptFile) }
        return [UInt8](data)
    }

    static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    /// A DER element with a definite length.
    static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if contents.count < 0x80 {
            length = [UInt8(contents.count)]
        } else {
            var rest = contents.count
            length = []
            while rest > 0 {
                length.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + contents
    }

    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        var typeBytes = withUnsafeBytes(of: UInt16(type).bigEndian, Array.init)
        if typeBytes[0] == 0, typeBytes[1] < 0x80 { typeBytes.removeFirst() }
        return tlv(0x30, tlv(0x02, typeBytes) + tlv(0x02, [1]) + tlv(0x04, value))
    }

    static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
    static func ia5(_ text: String) -> [UInt8] { tlv(0x16, Array(text.utf8)) }

    /// A SET OF attributes.
    static func set(_ attributes: [[UInt8]]) -> [UInt8] { tlv(0x31, attributes.flatMap { $0 }) }

    /// An Xcode-style BER container: indefinite lengths everywhere, eContent as a constructed
    /// OCTET STRING whose chunks are `payload` split every `chunk` bytes.
    static func indefiniteContainer(payload: [UInt8], chunk: Int, contentType: [UInt8] = signedDataOID) -> [UInt8] {
        var chunks: [UInt8] = []
        var offset = 0
        while offset < payload.count {
            let end = min(payload.count, offset + chunk)
            chunks += tlv(0x04, Array(payload[offset..<end]))
            offset = end
        }
        let endOfContents: [UInt8] = [0, 0]
        let digestAlgorithms = tlv(0x31, tlv(0x30, tlv(0x06, [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]) + [0x05, 0x00]))
        return [0x30, 0x80] + tlv(0x06, contentType)
            + [0xA0, 0x80, 0x30, 0x80] + tlv(0x02, [1]) + digestAlgorithms
            + [0x30, 0x80] + tlv(0x06, dataOID) + [0xA0, 0x80, 0x24, 0x80] + chunks + endOfContents
            + endOfContents + endOfContents
            + tlv(0x31, [])
            + endOfContents + endOfContents + endOfContents
    }

    /// A DER container whose eContent OCTET STRING holds `payload` as is.
    static func definiteContainer(payload: [UInt8], contentType: [UInt8] = signedDataOID, innerType: [UInt8] = dataOID) -> [UInt8] {
        let encapsulated = tlv(0x30, tlv(0x06, innerType) + tlv(0xA0, tlv(0x04, payload)))
        let signedData = tlv(0x30, tlv(0x02, [1]) + tlv(0x31, []) + encapsulated + tlv(0x31, []))
        return tlv(0x30, tlv(0x06, contentType) + tlv(0xA0, signedData))
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
