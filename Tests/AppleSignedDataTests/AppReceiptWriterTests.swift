import Foundation
import SwiftASN1
import Testing
@testable import AppleSignedData

@Suite struct AppReceiptWriterTests {
    static let purchases = [
        AppReceiptPurchase(
            productID: "com.example.pro.monthly", transactionID: "100000010000000003",
            originalTransactionID: "100000010000000000", expiresDate: "2026-12-19T10:46:09Z",
            webOrderLineItemID: 200_000_010_000_000_003),
        AppReceiptPurchase(productID: "com.example.coins.100", transactionID: "100000010090000000",
                           originalTransactionID: "100000010090000000", expiresDate: ""),
        AppReceiptPurchase(),
    ]

    @Test func roundTrip() throws {
        let bytes = AppReceiptWriter.receipt(
            bundleID: "com.example.subrecon", purchases: Self.purchases,
            extraAttributes: [(type: 10_000, value: [UInt8](repeating: 7, count: 3_000)), (type: 4, value: [1, 2, 3])])
        let contents = try AppReceiptReader.purchases(base64: Data(bytes).base64EncodedString())
        #expect(contents == AppReceiptContents(bundleID: "com.example.subrecon", purchases: Self.purchases))
        #expect(contents.transactionIDToAsk(products: ["com.example.pro.monthly"]) == "100000010000000000")
    }

    @Test func outputIsStrictDERWithAttributesInTypeOrder() throws {
        let bytes = AppReceiptWriter.receipt(
            bundleID: "b", purchases: Self.purchases,
            extraAttributes: [(type: 10_000, value: [9]), (type: 4, value: [8]), (type: 0, value: [])])
        let root = try DER.parse(bytes)  // throws on any BER-only form
        #expect(root.identifier == .sequence)
        // Dig out the payload the same way the reader does, but strictly.
        let payload = try payloadAttributes(bytes)
        #expect(payload.map(\.type) == [0, 2, 4, 17, 17, 17, 10_000])
    }

    @Test(arguments: [Int64.min, -129, -128, -1, 0, 1, 127, 128, 255, 256, 65_535, 1 << 40, Int64.max])
    func integersAreMinimalTwosComplement(value: Int64) throws {
        let bytes = DEREncoder.encode { $0.integer(value) }
        #expect(try Int64(derEncoded: bytes) == value)
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        #expect(bytes == serializer.serializedBytes)
    }

    @Test(arguments: [0, 1, 127, 128, 255, 256, 65_535, 65_536, 1_000_000])
    func lengthsAreMinimal(count: Int) throws {
        let bytes = DEREncoder.encode { $0.primitive(DEREncoder.octetString, [UInt8](repeating: 0xAB, count: count)) }
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1OctetString(contentBytes: [UInt8](repeating: 0xAB, count: count)[...]))
        #expect(bytes == serializer.serializedBytes)
    }

    /// Nested elements whose lengths cross the short/long boundary at several levels.
    @Test(arguments: [0, 120, 125, 126, 127, 128, 250, 251, 252, 253, 254, 255, 256, 65_530, 65_536])
    func nestedLengths(count: Int) throws {
        let filler = [UInt8](repeating: 1, count: count)
        let bytes = AppReceiptWriter.receipt(bundleID: "b", purchases: [], extraAttributes: [(type: 10_000, value: filler)])
        #expect(throws: Never.self) { try DER.parse(bytes) }
        let attributes = try payloadAttributes(bytes)
        #expect(attributes.last?.value == filler)
    }

    @Test func emptyReceipt() throws {
        let bytes = AppReceiptWriter.receipt(bundleID: "", purchases: [], extraAttributes: [])
        let contents = try AppReceiptReader.purchases(receipt: bytes)
        #expect(contents == AppReceiptContents(bundleID: "", purchases: []))
        #expect(contents.transactionIDToAsk(products: []) == nil)
    }

    private func payloadAttributes(_ bytes: [UInt8]) throws -> [(type: Int64, value: [UInt8])] {
        func children(_ node: ASN1Node) throws -> [ASN1Node] {
            guard case .constructed(let nodes) = node.content else { throw ASN1Error.invalidASN1Object(reason: "primitive") }
            return Array(nodes)
        }
        let contentInfo = try children(try DER.parse(bytes))
        let signedData = try children(try children(contentInfo[1])[0])
        let encapsulated = try children(signedData[2])
        let octets = try ASN1OctetString(derEncoded: try children(encapsulated[1])[0])
        return try children(try DER.parse(octets.bytes)).map { attribute in
            let fields = try children(attribute)
            return (try Int64(derEncoded: fields[0]), Array(try ASN1OctetString(derEncoded: fields[2]).bytes))
        }
    }
}
