import Crypto
import Foundation
import SubReconTestSupport
import Testing

@testable import AppleSignedData

/// Seeded mutations of a valid JWS: every input ends in a SignedDataError, never a crash, and
/// only the untouched original is accepted.
@Suite struct JWSFuzzTests {
    let chain = TestChains.standard

    /// Structured attacks, most of them correctly signed by the leaf's key so only the
    /// targeted check can refuse them.
    func structuredInputs() throws -> [String] {
        let key = chain.leafKey
        let x5c = x5cJSON(try chain.x5c())
        let certificates = try chain.x5c().map { "\"\(Base64.encode($0))\"" }
        let headers = [
            "{\"alg\":\"none\",\"x5c\":\(x5c)}",
            "{\"alg\":\"ES256\",\"alg\":\"ES256\",\"x5c\":\(x5c)}",
            "{\"alg\":\"ES256\",\"x5c\":\(x5c),\"x5c\":\(x5c)}",
            "{\"alg\":\"ES256\",\"x5c\":[\(Array(repeating: certificates[0], count: 12).joined(separator: ","))]}",
            "{\"alg\":\"ES256\",\"x5c\":[\(Array(repeating: "\"AAAA\"", count: 3000).joined(separator: ","))]}",
            "{\"alg\":\"ES256\",\"x5c\":[1,2,3]}",
            "{\"alg\":\"ES256\",\"x5c\":[[\(certificates[0])],\(certificates[1]),\(certificates[2])]}",
            "{\"alg\":\"ES256\",\"x5c\":[\(certificates[0]),{\"a\":\(certificates[1])},\(certificates[2])]}",
            "{\"alg\":\"ES256\",\"x5c\":[\(certificates[1]),\(certificates[0]),\(certificates[2])]}",
            "{\"alg\":\"ES256\",\"x5c\":[\(certificates[0]),\(certificates[0]),\(certificates[2])]}",
            "{\"alg\":\"ES256\",\"x5c\":[\(certificates[2]),\(certificates[1]),\(certificates[2])]}",
            "{\"alg\":\"ES256\",\"x5c\":null}",
            "{\"alg\":\"ES256\",\"x5c\":\(String(repeating: "[", count: 500))}",
            "{\"alg\":[\"ES256\"],\"x5c\":\(x5c)}",
        ]
        var inputs = try headers.map { try forgedJWS(header: $0, key: key) }
        // Payload attacks under the genuine header.
        for text in ["{\"signedDate\":1e400}", "{\"signedDate\":\(Int64.max)}", "[\(String(repeating: "{\"a\":", count: 40))",
                     "{\"signedDate\":\(TestChain.signedDate),\"signedDate\":\(TestChain.signedDate)}"] {
            inputs.append(try chain.signer().sign(payload: Array(text.utf8)))
        }
        inputs.append(String(repeating: "A", count: 70_000))
        inputs.append(try chain.jws() + "." + String(repeating: "A", count: 70_000))
        return inputs
    }

    @Test func mutatedInputsAreAllRefusedAndNothingCrashes() async throws {
        let original = try chain.jws()
        let bytes = Array(original.utf8)
        var generator = SplitMix64(seed: 0x5EED_CAFE)
        var inputs: [String] = []

        // Truncated at every length.
        for length in 0..<bytes.count {
            inputs.append(String(decoding: bytes[..<length], as: UTF8.self))
        }
        // Single bit flips anywhere.
        for _ in 0..<500 {
            var mutated = bytes
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            inputs.append(String(decoding: mutated, as: UTF8.self))
        }
        // One character replaced by another valid base64url character (or a dot).
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        for _ in 0..<300 {
            var mutated = bytes
            mutated[Int.random(in: 0..<mutated.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            inputs.append(String(decoding: mutated, as: UTF8.self))
        }
        // Random bytes and random dotted base64url noise.
        for _ in 0..<100 {
            let length = Int.random(in: 0..<1024, using: &generator)
            inputs.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }, as: UTF8.self))
            let noise = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            inputs.append(String(decoding: noise, as: UTF8.self))
        }
        inputs += try structuredInputs()

        let verifier = chain.verifier()
        var accepted = 0
        var refused = 0
        for input in inputs {
            do {
                _ = try await verifier.verify(input)
                accepted += 1
                #expect(input == original, "accepted a mutated JWS: \(input.prefix(80))…")
            } catch {
                refused += 1
            }
        }
        // The original itself still verifies after all that, through the cache.
        _ = try await verifier.verify(original)
        #expect(accepted == inputs.filter { $0 == original }.count)
        #expect(refused + accepted == inputs.count)
        #expect(inputs.count > 3000)
    }
}
