/// A compact JWS split into its three parts and decoded, before any trust decision (check 1 of
/// ``SignedDataVerifier``): exactly three base64url parts, bounded sizes, a header that is a JSON
/// object without duplicate members.
struct CompactJWS: Sendable {
    /// Larger inputs are refused before any decoding; Apple's are ~4–6 KB.
    static let maximumByteCount = 64 * 1024
    /// Larger decoded headers are refused; Apple's (three certificates) are ~3.5 KB.
    static let maximumHeaderByteCount = 16 * 1024

    /// The header's members.
    let header: [String: JSONValue]
    /// The decoded payload bytes (not yet known to be JSON).
    let payload: [UInt8]
    /// The decoded signature bytes (not yet known to be 64 bytes).
    let signature: [UInt8]
    /// The ASCII bytes the signature covers: `base64url(header) "." base64url(payload)`.
    let signingInput: ArraySlice<UInt8>

    init(_ text: String) throws(SignedDataError) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maximumByteCount else {
            throw .tooLarge(byteCount: utf8.count, limit: Self.maximumByteCount)
        }
        let dots = utf8.indices.filter { utf8[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw .wrongPartCount(dots.count + 1) }
        let headerText = utf8[..<dots[0]]
        let payloadText = utf8[(dots[0] + 1)..<dots[1]]
        let signatureText = utf8[(dots[1] + 1)...]

        // Refuse an oversized header from its encoded length, before decoding it.
        let headerByteCount = headerText.count * 3 / 4
        guard headerByteCount <= Self.maximumHeaderByteCount else {
            throw .headerTooLarge(byteCount: headerByteCount, limit: Self.maximumHeaderByteCount)
        }
        guard let headerBytes = Base64URL.decode(utf8: headerText) else { throw .invalidBase64URL(.header) }
        guard let payload = Base64URL.decode(utf8: payloadText) else { throw .invalidBase64URL(.payload) }
        guard let signature = Base64URL.decode(utf8: signatureText) else { throw .invalidBase64URL(.signature) }

        header = try StrictJSON.object(headerBytes, duplicate: SignedDataError.duplicateHeaderMember, notObject: .headerNotJSONObject)
        self.payload = payload
        self.signature = signature
        self.signingInput = utf8[..<dots[1]]
    }
}
