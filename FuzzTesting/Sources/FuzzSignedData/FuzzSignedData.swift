@testable import AppleSignedData

/// Apple's signed data before any trust decision: the compact JWS (three base64url parts, the
/// header through StrictJSON), `alg`, the `x5c` certificates (base64, then DER through
/// swift-certificates) and the payload's `signedDate`: checks 1 to 4 of SignedDataVerifier, in its
/// order. Any text gives a value or a SignedDataError.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let jws = try? CompactJWS(text) else { return 0 }
    _ = try? SignedPayload(jws.payload, nowMs: 1_800_000_000_000)
    guard case .string(ES256.name)? = jws.header["alg"], let certificates = try? CertificateChainHeader(header: jws.header)
    else { return 0 }
    _ = try? certificates.parse()
    return 0
}
