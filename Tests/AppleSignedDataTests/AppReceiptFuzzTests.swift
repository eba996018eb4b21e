import Foundation
import SubReconTestSupport
import Testing
@testable import AppleSignedData

/// Hostile input never crashes the reader: it returns contents or throws `AppReceiptError`
/// (typed throws make any other outcome impossible), whatever the bytes.
@Suite struct AppReceiptFuzzTests {
    typealias F = AppReceiptFixture

    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let written = AppReceiptWriter.receipt(
            bundleID: "com.example.subrecon",
            purchases: [AppReceiptPurchase(productID: "p", transactionID: "1", originalTransactionID: "1",
                                           expiresDate: "2026-01-01T00:00:00Z", webOrderLineItemID: 5)],
            extraAttributes: [(type: 4, value: Array("opaque".utf8))])
        let indefinite = F.indefiniteContainer(
            payload: F.set([F.attribute(17, F.set([F.attribute(1705, F.utf8("9"))]))]), chunk: 5)
        return [
            ("xcode", try F.bytes("xcode-app-receipt-empty")),
            ("sandbox", try F.bytes("sandbox-app-receipt-subscription")),
            ("written", written),
            ("indefinite", indefinite),
        ]
    }

    /// Parses and touches the result, so nothing is optimised away.
    static func read(_ bytes: [UInt8]) -> Int {
        do {
            let contents = try AppReceiptReader.purchases(receipt: bytes)
            return contents.purchases.count + (contents.transactionIDToAsk(products: ["p"])?.count ?? 0)
        } catch {
            return error.description.isEmpty ? -2 : -1
        }
    }

    @Test func truncationsAtEveryLength() throws {
        for (name, bytes) in try Self.seeds() {
            var accepted = 0
            for length in 0..<bytes.count where Self.read(Array(bytes.prefix(length))) >= 0 {
                accepted += 1
            }
            // A BER/DER element cut short never parses.
            #expect(accepted == 0, "\(name)")
            #expect(Self.read(bytes) >= 0, "\(name)")
        }
    }

    @Test func bitFlips() throws {
        var generator = SplitMix64(seed: 0x5EED_0001)
        for (_, bytes) in try Self.seeds() {
            for _ in 0..<1_500 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<mutated.count, using: &generator)
                    mutated[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
                }
                _ = Self.read(mutated)
            }
        }
    }

    @Test func byteSplices() throws {
        var generator = SplitMix64(seed: 0x5EED_0002)
        let interesting: [UInt8] = [0x00, 0x04, 0x24, 0x30, 0x31, 0x80, 0x81, 0x84, 0x8F, 0xA0, 0xFF]
        for (_, bytes) in try Self.seeds() {
            for _ in 0..<1_000 {
                var mutated = bytes
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[index] = interesting.randomElement(using: &generator)!
                case 1: mutated.insert(interesting.randomElement(using: &generator)!, at: index)
                default: mutated.remove(at: index)
                }
                _ = Self.read(mutated)
            }
        }
    }

    @Test func randomBytesAndText() {
        var generator = SplitMix64(seed: 0x5EED_0003)
        let prefixes: [[UInt8]] = [[], [0x30, 0x80], [0x30, 0x82], [0x30, 0x80, 0x06, 0x09] + F.signedDataOID]
        for _ in 0..<3_000 {
            let prefix = prefixes.randomElement(using: &generator)!
            let count = Int.random(in: 0...400, using: &generator)
            let bytes = prefix + (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = Self.read(bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? AppReceiptReader.purchases(base64: text)
            _ = try? AppReceiptReader.purchases(base64: Data(bytes).base64EncodedString())
        }
    }
}
