import AppleSignedData
import Crypto
import SubReconTestSupport

/// What AppleSignedData makes of a test chain: its signer, a verifier trusting only its root,
/// and JWS signed with it (the chain itself is the shared test PKI, `TestChain`).
extension TestChain {
    func signer() throws -> JWSSigner {
        JWSSigner(privateKey: leafKey, certificateChain: try x5c())
    }

    /// A verifier trusting only this chain's root, with the test clock.
    func verifier(now: Int64 = TestChain.now) -> SignedDataVerifier {
        SignedDataVerifier(rootCertificates: [root], clock: { now })
    }

    /// A JWS of a small transaction-like payload signed at `signedDateMs`.
    func jws(signedDateMs: Int64 = TestChain.signedDate, bundleID: String = "com.example") throws -> String {
        try signer().sign(payload: payload(signedDateMs: signedDateMs, bundleID: bundleID))
    }
}

func payload(signedDateMs: Int64 = TestChain.signedDate, bundleID: String = "com.example") -> [UInt8] {
    Array(#"{"bundleId":"\#(bundleID)","environment":"Sandbox","signedDate":\#(signedDateMs)}"#.utf8)
}

/// Signs arbitrary header JSON text with `key` (to forge headers the signer would never write).
func forgedJWS(header: String, payload: [UInt8] = payload(), key: P256.Signing.PrivateKey) throws -> String {
    try JWSSigner.sign(header: Array(header.utf8), payload: payload, privateKey: key)
}

/// The `x5c` JSON array text for these DER certificates.
func x5cJSON(_ certificates: [[UInt8]]) -> String {
    "[" + certificates.map { "\"\(Base64.encode($0))\"" }.joined(separator: ",") + "]"
}

/// Every shared test chain; building certificates (key generation and signing) is slow next to a
/// test's own checks, so tests reuse these.
enum TestChains {
    static let standard = try! TestChain()
}
