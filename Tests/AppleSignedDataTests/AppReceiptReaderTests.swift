import Foundation
import Testing
@testable import AppleSignedData

@Suite struct AppReceiptReaderTests {
    typealias F = AppReceiptFixture

    @Test func xcodeReceiptWithoutPurchases() throws {
        let contents = try AppReceiptReader.purchases(base64: try F.text("xcode-app-receipt-empty"))
        #expect(contents.bundleID == "com.example.naturelab.backyardbirds.example")
        #expect(contents.purchases.isEmpty)
        #expect(contents.transactionIDToAsk(products: []) == nil)
    }

    @Test func realSandboxReceiptWithASubscription() throws {
        let contents = try AppReceiptReader.purchases(base64: try F.text("sandbox-app-receipt-subscription"))
        #expect(contents.bundleID == "com.XMCodey.apple.ClipTrace")
        #expect(contents.purchases == [AppReceiptPurchase(
            productID: "clip_trace_apple_store_annual_subscribe",
            transactionID: "2000000909538865",
            originalTransactionID: "2000000909538865",
            expiresDate: "2025-04-30T02:53:37Z",
            webOrderLineItemID: 2_000_000_098_137_843)])
        #expect(contents.purchases[0].isSubscription)
        #expect(contents.transactionIDToAsk(products: ["clip_trace_apple_store_annual_subscribe"]) == "2000000909538865")
        #expect(contents.transactionIDToAsk(products: ["com.example.other"]) == "2000000909538865")
    }

    @Test func receiptDataWithLineBreaksAndWithoutPadding() throws {
        let text = try F.text("sandbox-app-receipt-subscription")
        var wrapped = ""
        for (index, character) in text.enumerated() {
            if index > 0, index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        let expected = try AppReceiptReader.purchases(base64: text)
        #expect(try AppReceiptReader.purchases(base64: wrapped + "\n") == expected)
        var unpadded = text
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        #expect(unpadded.count < text.count)
        #expect(try AppReceiptReader.purchases(base64: unpadded) == expected)
    }

    @Test func transactionReceiptIsRefusedClearly() throws {
        #expect(throws: AppReceiptError.transactionReceipt) {
            try AppReceiptReader.purchases(base64: try F.text("legacy-transaction-receipt"))
        }
        #expect(AppReceiptError.transactionReceipt.description.contains("iOS 6-style transaction receipt"))
    }

    /// Xcode's layout with transactions: indefinite lengths and the payload in OCTET STRING chunks.
    @Test(arguments: [1, 7, 64, 10_000])
    func indefiniteLengthsAndChunkedContent(chunk: Int) throws {
        let payload = F.set([
            F.attribute(2, F.utf8("com.example.app")),
            F.attribute(17, F.set([
                F.attribute(1702, F.utf8("com.example.pro.monthly")),
                F.attribute(1703, F.utf8("0")),
                F.attribute(1705, F.utf8("0")),
                F.attribute(1708, F.ia5("2024-08-15T05:31:21Z")),
            ])),
        ])
        let receipt = F.indefiniteContainer(payload: payload, chunk: chunk)
        let contents = try AppReceiptReader.purchases(base64: F.base64(receipt))
        #expect(contents.bundleID == "com.example.app")
        #expect(contents.purchases == [AppReceiptPurchase(
            productID: "com.example.pro.monthly", transactionID: "0", originalTransactionID: "0",
            expiresDate: "2024-08-15T05:31:21Z")])
        #expect(contents.transactionIDToAsk(products: []) == "0")
    }

    @Test(arguments: [1, 2, 4])
    func extraOctetStringsAroundThePayloadAreUnwrapped(layers: Int) throws {
        var payload = F.set([F.attribute(17, F.set([F.attribute(1703, F.utf8("42"))]))])
        for _ in 0..<layers { payload = F.tlv(0x04, payload) }
        let contents = try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload))
        #expect(contents.purchases.map(\.transactionID) == ["42"])
    }

    @Test func unwrappingIsBounded() {
        var payload = F.set([F.attribute(17, F.set([F.attribute(1703, F.utf8("42"))]))])
        for _ in 0..<(AppReceiptReader.maximumOctetStringWrapping + 1) { payload = F.tlv(0x04, payload) }
        #expect(throws: AppReceiptError.payloadUnreadable(reason: "not a SET of receipt attributes")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload))
        }
    }

    @Test func valuesInOtherEncodingsAndMalformedAttributes() throws {
        let payload = F.set([
            F.attribute(17, F.set([
                F.attribute(1702, F.tlv(0x13, Array("printable.product".utf8))),  // PrintableString
                F.attribute(1703, F.tlv(0x02, [0x01, 0x00])),  // INTEGER 256 as text
                F.attribute(1705, [0xFF, 0x00]),  // not DER: ignored
                F.attribute(1708, F.ia5("")),  // empty expiry: not a subscription
                F.attribute(1711, F.utf8("7")),  // not an INTEGER: ignored
                F.tlv(0x30, F.tlv(0x02, [0x06, 0xA7])),  // a SEQUENCE without version and value: skipped
                F.tlv(0x04, [1, 2, 3]),  // not a SEQUENCE: skipped
            ])),
            F.attribute(2, [0x0C, 0x02, 0xC3, 0x28]),  // invalid UTF-8: no bundle id
        ])
        let contents = try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload))
        #expect(contents.bundleID == nil)
        #expect(contents.purchases == [AppReceiptPurchase(
            productID: "printable.product", transactionID: "256", expiresDate: "")])
        #expect(!contents.purchases[0].isSubscription)
    }

    // MARK: - Errors

    @Test func tooLarge() {
        let limit = AppReceiptReader.maximumBase64Count
        let huge = String(repeating: "A", count: limit + 4)
        #expect(throws: AppReceiptError.tooLarge(characterCount: limit + 4, limit: limit)) {
            try AppReceiptReader.purchases(base64: huge)
        }
    }

    @Test(arguments: ["", "   \n", "not base64!", "AAA=A", "A", "AB=C", "QUJD===", "QUJDRA==="])
    func notBase64(text: String) {
        #expect(throws: AppReceiptError.notBase64) { try AppReceiptReader.purchases(base64: text) }
    }

    @Test func notPKCS7() {
        for bytes: [UInt8] in [Array("hello, world".utf8), [0x02, 0x01, 0x01], F.tlv(0x30, F.tlv(0x02, [1])), [0x30, 0x80]] {
            #expect(throws: AppReceiptError.self) { try AppReceiptReader.purchases(receipt: bytes) }
            do {
                _ = try AppReceiptReader.purchases(receipt: bytes)
            } catch {
                guard case .notPKCS7 = error else {
                    Issue.record("\(bytes): \(error)")
                    continue
                }
            }
        }
    }

    @Test func wrongContentType() {
        let payload = F.set([])
        #expect(throws: AppReceiptError.wrongContentType("1.2.840.113549.1.7.1")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload, contentType: F.dataOID))
        }
        let envelopedData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03]
        #expect(throws: AppReceiptError.wrongContentType("signed 1.2.840.113549.1.7.3")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload, innerType: envelopedData))
        }
    }

    @Test func payloadUnreadable() {
        #expect(throws: AppReceiptError.payloadUnreadable(reason: "not a SET of receipt attributes")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: F.tlv(0x02, [5])))
        }
        #expect(throws: AppReceiptError.payloadUnreadable(reason: "in-app purchase record 1 is not a SET")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: F.set([F.attribute(17, F.utf8("x"))])))
        }
        // No eContent at all (a detached signature).
        let encapsulated = F.tlv(0x30, F.tlv(0x06, F.dataOID))
        let signedData = F.tlv(0x30, F.tlv(0x02, [1]) + F.tlv(0x31, []) + encapsulated + F.tlv(0x31, []))
        let detached = F.tlv(0x30, F.tlv(0x06, F.signedDataOID) + F.tlv(0xA0, signedData))
        #expect(throws: AppReceiptError.payloadUnreadable(reason: "no signed content")) {
            try AppReceiptReader.purchases(receipt: detached)
        }
    }

    @Test func errorDescriptionsNeverEchoTheReceipt() throws {
        let receipt = try F.text("sandbox-app-receipt-subscription")
        let broken = String(receipt.prefix(3000)) + "!" + String(receipt.dropFirst(3000))
        let truncated = String(receipt.prefix(2000))
        for text in [broken, truncated, receipt + receipt] {
            do {
                _ = try AppReceiptReader.purchases(base64: text)
                Issue.record("accepted")
            } catch {
                #expect(error.description.count < 120)
                #expect(!error.description.contains(String(receipt.prefix(16))))
            }
        }
    }

    @Test func deepNestingFailsWithoutCrashing() {
        let deep: [UInt8] = (0..<20_000).map { $0 % 2 == 0 ? 0x30 : 0x80 }
        #expect(throws: AppReceiptError.notPKCS7(reason: "not ASN.1 BER")) { try AppReceiptReader.purchases(receipt: deep) }
        var payload: [UInt8] = [0x31, 0x00]
        for _ in 0..<200 { payload = F.tlv(0x31, F.tlv(0x30, payload)) }
        #expect(throws: AppReceiptError.payloadUnreadable(reason: "not a SET of receipt attributes")) {
            try AppReceiptReader.purchases(receipt: F.definiteContainer(payload: payload))
        }
    }
}
