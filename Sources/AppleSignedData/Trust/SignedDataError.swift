/// Why ``SignedDataVerifier`` refused a JWS. One case per failed check, in the order the checks
/// run; each description is one sentence naming the check, for the operator's log and the
/// receipt's recorded reason.
public enum SignedDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A JWS segment (for `invalidBase64URL`).
    public enum Part: String, Sendable {
        case header, payload, signature
    }

    /// A certificate's role in the chain.
    public enum CertificateRole: String, Sendable {
        case leaf, intermediate, root
    }

    // 1. Format
    case tooLarge(byteCount: Int, limit: Int)
    case wrongPartCount(Int)
    case headerTooLarge(byteCount: Int, limit: Int)
    case invalidBase64URL(Part)
    case headerNotJSONObject
    case duplicateHeaderMember(String)
    /// A `crit` header: no JWS extension is understood here, so RFC 7515 §4.1.11 says reject.
    case criticalHeaderPresent

    // 2. Algorithm
    /// `alg` missing (nil), not a string (`"<non-string>"`) or not exactly `ES256`.
    case algorithmNotES256(String?)

    // 3. Certificates
    case missingCertificateChain
    case wrongCertificateCount(Int)
    /// `x5c[index]` is not a string of standard padded base64.
    case invalidCertificateEncoding(index: Int)
    /// `x5c[index]` (0 leaf, 1 intermediate) is not a DER X.509 certificate.
    case invalidCertificate(index: Int)
    /// ES256 needs a P-256 key in the leaf certificate.
    case leafKeyNotP256

    // 4. Payload
    case payloadNotJSONObject
    case duplicatePayloadMember(String)
    case missingSignedDate
    case signedDateInFuture(signedDateMs: Int64, nowMs: Int64)

    // 5. Chain
    /// No path from the leaf through `x5c[1]` to a configured root (unknown root, bad certificate
    /// signature or a forged issuer).
    case untrustedChain
    case certificateNotValidAtSignedDate(CertificateRole, notBeforeMs: Int64, notAfterMs: Int64, signedDateMs: Int64)
    case chainLengthNot3(Int)
    case intermediateMissingAppleMarker
    case leafMissingAppleMarker
    /// The leaf or intermediate has no Authority Key Identifier (strict verification only).
    case missingAuthorityKeyIdentifier(CertificateRole)
    /// The intermediate or root has no Subject Key Identifier (strict verification only).
    case missingSubjectKeyIdentifier(CertificateRole)
    /// The certificate's Authority Key Identifier is not its issuer's Subject Key Identifier.
    case authorityKeyIdentifierMismatch(CertificateRole)
    /// Another RFC 5280 rule failed (basic constraints, name constraints, version…).
    case chainRejected(reason: String)

    // 6. Signature
    /// The signature is not 64 bytes `R || S` (a DER signature is 70–72 bytes).
    case signatureNotRaw(byteCount: Int)
    case signatureMismatch

    public var description: String {
        switch self {
        case .tooLarge(let count, let limit):
            "JWS format: \(count) bytes exceed the limit of \(limit)"
        case .wrongPartCount(let count):
            "JWS format: \(count) dot-separated parts instead of 3"
        case .headerTooLarge(let count, let limit):
            "JWS format: header of \(count) bytes exceeds the limit of \(limit)"
        case .invalidBase64URL(let part):
            "JWS format: the \(part.rawValue) is not unpadded base64url"
        case .headerNotJSONObject:
            "JWS format: the header is not a JSON object"
        case .duplicateHeaderMember(let name):
            "JWS format: the header names \(JSONText.quoted(name)) twice"
        case .criticalHeaderPresent:
            "JWS format: the header has a \"crit\" member, and no extension is supported"
        case .algorithmNotES256(let found):
            "JWS algorithm: alg is \(found.map(JSONText.quoted) ?? "missing"), only \"ES256\" is accepted"
        case .missingCertificateChain:
            "JWS certificates: the header has no x5c array"
        case .wrongCertificateCount(let count):
            "JWS certificates: x5c holds \(count) entries instead of 3"
        case .invalidCertificateEncoding(let index):
            "JWS certificates: x5c[\(index)] is not a string of standard padded base64"
        case .invalidCertificate(let index):
            "JWS certificates: x5c[\(index)] is not a DER X.509 certificate"
        case .leafKeyNotP256:
            "JWS certificates: the leaf certificate's key is not on P-256, as ES256 requires"
        case .payloadNotJSONObject:
            "JWS payload: not a JSON object"
        case .duplicatePayloadMember(let name):
            "JWS payload: names \(JSONText.quoted(name)) twice"
        case .missingSignedDate:
            "JWS payload: no integer signedDate"
        case .signedDateInFuture(let signed, let now):
            "JWS payload: signedDate \(signed) is more than 5 minutes after now (\(now))"
        case .untrustedChain:
            "certificate chain: the leaf and x5c[1] do not chain to a configured root certificate"
        case .certificateNotValidAtSignedDate(let role, let notBefore, let notAfter, let signedDate):
            "certificate chain: the \(role.rawValue) certificate, valid \(notBefore)–\(notAfter), was not valid at signedDate \(signedDate)"
        case .chainLengthNot3(let count):
            "certificate chain: \(count) certificates instead of leaf, intermediate and root"
        case .intermediateMissingAppleMarker:
            "certificate chain: the intermediate lacks Apple's WWDR marker extension 1.2.840.113635.100.6.2.1"
        case .leafMissingAppleMarker:
            "certificate chain: the leaf lacks Apple's receipt-signing marker extension 1.2.840.113635.100.6.11.1"
        case .missingAuthorityKeyIdentifier(let role):
            "certificate chain: the \(role.rawValue) certificate has no Authority Key Identifier, which RFC 5280 and strict verifiers require"
        case .missingSubjectKeyIdentifier(let role):
            "certificate chain: the \(role.rawValue) certificate has no Subject Key Identifier, which RFC 5280 and strict verifiers require"
        case .authorityKeyIdentifierMismatch(let role):
            "certificate chain: the \(role.rawValue) certificate's Authority Key Identifier is not its issuer's Subject Key Identifier"
        case .chainRejected(let reason):
            "certificate chain: rejected by RFC 5280 validation: \(reason)"
        case .signatureNotRaw(let count):
            "JWS signature: \(count) bytes instead of the 64-byte R||S form of ES256"
        case .signatureMismatch:
            "JWS signature: does not verify with the leaf certificate's key"
        }
    }
}
