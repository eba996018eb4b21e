import Crypto

/// Signs payloads as Apple does: a compact JWS with `alg` ES256 and an `x5c` header carrying the
/// given certificates (DER, leaf first) in standard base64. For tests and the simulator; the
/// signature is raw `R || S`.
public struct JWSSigner: Sendable {
    /// The key of the leaf certificate (`certificateChain[0]`).
    public var privateKey: P256.Signing.PrivateKey {
        sharedKey.key
    }
    private let sharedKey: SharedKey<P256.Signing.PrivateKey>
    /// DER certificates, leaf first, written as the `x5c` header.
    public let certificateChain: [[UInt8]]

    public init(privateKey: P256.Signing.PrivateKey, certificateChain: [[UInt8]]) {
        sharedKey = SharedKey(privateKey)
        self.certificateChain = certificateChain
    }

    /// The header this signer writes: `{"alg":"ES256","x5c":[...]}`.
    public var headerJSON: [UInt8] {
        let chain = certificateChain.map { JSONText.quoted(Base64.encode($0)) }.joined(separator: ",")
        return Array("{\"alg\":\"\(ES256.name)\",\"x5c\":[\(chain)]}".utf8)
    }

    /// The compact JWS of `payload` (usually JSON bytes).
    public func sign(payload: [UInt8]) throws(ES256SigningError) -> String {
        try Self.sign(header: headerJSON, payload: payload, privateKey: privateKey)
    }

    /// The compact JWS of exactly these header and payload bytes, signed ES256 by `privateKey`
    /// whatever the header says (tests use it to forge headers).
    public static func sign(
        header: [UInt8],
        payload: [UInt8],
        privateKey: P256.Signing.PrivateKey
    ) throws(ES256SigningError) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try ES256.sign(Array(signingInput.utf8), with: privateKey)
        return signingInput + "." + Base64URL.encode(signature)
    }
}
