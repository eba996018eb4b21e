import Crypto
import SubReconTestSupport
import Testing
import X509

@testable import AppleSignedData

/// The chain cache: chain work once per (leaf, intermediate), signatures and validity windows
/// always checked.
@Suite struct ChainCacheTests {
    let chain = TestChains.standard

    @Test func aSecondJWSOnTheSameChainDoesNoChainWork() async throws {
        let verifier = chain.verifier()
        _ = try await verifier.verify(try chain.jws())
        _ = try await verifier.verify(try chain.jws(signedDateMs: TestChain.signedDate - 1000))
        _ = try await verifier.verify(try chain.jws(bundleID: "com.example.other"))
        #expect(verifier.chainValidationCount == 1)
        #expect(verifier.cachedChainCount == 1)
    }

    @Test func copiesShareOneCache() async throws {
        let verifier = chain.verifier()
        let copy = verifier
        _ = try await verifier.verify(try chain.jws())
        _ = try await copy.verify(try chain.jws())
        #expect(copy.chainValidationCount == 1)
    }

    @Test func aCachedChainStillChecksEverySignature() async throws {
        let verifier = chain.verifier()
        _ = try await verifier.verify(try chain.jws())
        let forged = try JWSSigner(privateKey: P256.Signing.PrivateKey(), certificateChain: try chain.x5c()).sign(payload: payload())
        await #expect(throws: SignedDataError.signatureMismatch) { try await verifier.verify(forged) }
        let good = try chain.jws()
        let tampered = good.split(separator: ".")[0] + "." + Base64URL.encode(payload(bundleID: "evil")) + "." + good.split(separator: ".")[2]
        await #expect(throws: SignedDataError.signatureMismatch) { try await verifier.verify(String(tampered)) }
        #expect(verifier.chainValidationCount == 1)
    }

    @Test func aCachedChainStillChecksEachSignedDateAgainstTheWindows() async throws {
        let later = TestChain.leafValidity.upperBound + 86_400_000
        let verifier = chain.verifier(now: later)
        _ = try await verifier.verify(try chain.jws())
        #expect(verifier.chainValidationCount == 1)

        let expired = SignedDataError.certificateNotValidAtSignedDate(
            .leaf, notBeforeMs: TestChain.leafValidity.lowerBound, notAfterMs: TestChain.leafValidity.upperBound,
            signedDateMs: later)
        await #expect(throws: expired) { try await verifier.verify(try chain.jws(signedDateMs: later)) }
        // The entry survives; data inside the window still hits it.
        let before = verifier.chainValidationCount
        _ = try await verifier.verify(try chain.jws())
        #expect(verifier.chainValidationCount == before)
    }

    @Test func failuresAreNeverCached() async throws {
        let unmarked = try TestChain(leafMarker: false)
        let verifier = unmarked.verifier()
        for _ in 0..<3 {
            await #expect(throws: SignedDataError.leafMissingAppleMarker) { try await verifier.verify(try unmarked.jws()) }
        }
        #expect(verifier.chainValidationCount == 3)
        #expect(verifier.cachedChainCount == 0)
    }

    @Test func theCacheIsKeyedByTheExactIntermediateToo() async throws {
        let sibling = try TestChain(root: (chain.root, chain.rootKey))
        let verifier = SignedDataVerifier(rootCertificates: [chain.root], clock: { TestChain.now })
        _ = try await verifier.verify(try chain.jws())
        _ = try await verifier.verify(try sibling.jws())
        // Same leaf bytes with another intermediate: a new key, full validation, and a refusal.
        var x5c = try chain.x5c()
        x5c[1] = try derBytes(sibling.intermediate)
        let mixed = try JWSSigner(privateKey: chain.leafKey, certificateChain: x5c).sign(payload: payload())
        await #expect(throws: SignedDataError.untrustedChain) { try await verifier.verify(mixed) }
        #expect(verifier.chainValidationCount == 3)
        #expect(verifier.cachedChainCount == 2)
    }

    @Test func theCacheIsBoundedAndEvictsTheOldest() throws {
        let cache = ChainCache(capacity: 2)
        let entry = TrustedChain(validated: [chain.leaf, chain.intermediate, chain.root], leafKey: chain.leafKey.publicKey)
        let keys = (0..<3).map { ChainCache.Key(leaf: [UInt8($0)], intermediate: [1]) }
        for key in keys {
            cache.store(entry, for: key)
        }
        #expect(cache.count == 2)
        #expect(cache.lookup(keys[0]) == nil)
        #expect(cache.lookup(keys[1]) != nil)
        #expect(cache.lookup(keys[2]) != nil)
    }

    @Test func cachedWindowsCoverLeafIntermediateAndRoot() {
        let entry = TrustedChain(validated: [chain.leaf, chain.intermediate, chain.root], leafKey: chain.leafKey.publicKey)
        #expect(entry.windows.map(\.role) == [.leaf, .intermediate, .root])
        #expect(entry.windows[0].notBeforeMs == TestChain.leafValidity.lowerBound)
        #expect(entry.windows[0].notAfterMs == TestChain.leafValidity.upperBound)
        #expect(entry.windowExcluding(TestChain.signedDate) == nil)
        #expect(entry.windowExcluding(unixMs(2019, 6, 1))?.role == .leaf)
        #expect(entry.windowExcluding(unixMs(2041, 1, 1))?.role == .leaf)
    }
}
