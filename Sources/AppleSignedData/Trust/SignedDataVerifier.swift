import Crypto
import X509

/// Verifies Apple's signed data (a compact JWS with an `x5c` chain) against pinned roots.
///
/// Checks run in a fixed order and the first failure is thrown as a ``SignedDataError``:
/// 1. format: three unpadded base64url parts, at most 64 KiB (header at most 16 KiB), the header a
///    JSON object without duplicate members and without `crit`;
/// 2. `alg` is exactly `ES256`;
/// 3. `x5c` holds exactly three standard-base64 DER certificates; the leaf (P-256 key) and the
///    intermediate parse; `x5c[2]` is never trusted nor used;
/// 4. the payload is a JSON object with an integer `signedDate` at most 5 minutes ahead of now;
/// 5. leaf → intermediate → a configured root, RFC 5280 valid at `signedDate` (not now), with
///    Apple's marker extensions on the intermediate and the leaf and, by default, the key
///    identifiers strict verifiers demand (``KeyIdentifierPolicy``);
/// 6. the 64-byte `R || S` ES256 signature over `header.payload` verifies with the leaf's key.
///
/// Step 5 is memoised per exact (leaf, intermediate) bytes in a cache shared by all copies of
/// the verifier; a hit re-checks the three validity windows against this payload's `signedDate`,
/// and step 6 always runs. Content checks (bundle id, environment) are the caller's.
public struct SignedDataVerifier: Sendable {
    /// A verifier pinned to Apple Root CA - G3 (compiled in), using the wall clock.
    public static let apple: SignedDataVerifier = {
        do {
            return try SignedDataVerifier(rootPEM: AppleRootCertificates.appleRootCAG3)
        } catch {
            fatalError("the compiled-in Apple Root CA - G3 does not parse: \(error)")
        }
    }()

    private let validator: ChainValidator
    private let cache: ChainCache
    private let clock: @Sendable () -> Int64

    /// A verifier trusting exactly `rootCertificates`.
    /// - Parameters:
    ///   - clock: now, in Unix milliseconds (only used to refuse future `signedDate`s).
    ///   - requiresKeyIdentifiers: refuse chains without the Subject and Authority Key
    ///     Identifiers RFC 5280 requires, as OpenSSL's strict mode (and so Apple's libraries) does:
    ///     whatever subrecon accepts, a backend using Apple's library accepts too. Apple's real
    ///     chain has them; only old test chains (Apple's own library's among them) lack them,
    ///     which is why Apple's libraries can turn strict checks off too.
    public init(
        rootCertificates: [Certificate],
        clock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds,
        requiresKeyIdentifiers: Bool = true
    ) {
        validator = ChainValidator(roots: CertificateStore(rootCertificates), requiresKeyIdentifiers: requiresKeyIdentifiers)
        cache = ChainCache()
        self.clock = clock
    }

    /// A verifier trusting the certificates of `rootPEM` (one or more `CERTIFICATE` blocks, any
    /// line length).
    public init(
        rootPEM: String,
        clock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds,
        requiresKeyIdentifiers: Bool = true
    ) throws(RootCertificateError) {
        var roots: [Certificate] = []
        for (index, der) in try RootCertificatePEM.derCertificates(in: rootPEM).enumerated() {
            guard let root = try? Certificate(derEncoded: der) else { throw .notACertificate(index: index) }
            roots.append(root)
        }
        self.init(rootCertificates: roots, clock: clock, requiresKeyIdentifiers: requiresKeyIdentifiers)
    }

    /// The JWS's payload if every check passes, else the first failed check.
    public func verify(_ compactJWS: String) async throws(SignedDataError) -> VerifiedSignedData {
        if let verified = try verifyWithKnownHeader(compactJWS) { return verified }

        // 1. Format.
        let jws = try CompactJWS(compactJWS)
        if jws.header["crit"] != nil { throw .criticalHeaderPresent }

        // 2. Algorithm.
        switch jws.header["alg"] {
        case .string(ES256.name): break
        case .string(let other): throw .algorithmNotES256(other)
        case nil: throw .algorithmNotES256(nil)
        default: throw .algorithmNotES256("<non-string>")
        }

        // 3. Certificates. A cache hit means these exact bytes parsed and chained before.
        let certificates = try CertificateChainHeader(header: jws.header)
        let cached = cache.lookup(certificates.cacheKey)
        let parsed = cached == nil ? try certificates.parse() : nil

        // 4. Payload.
        let payload = try SignedPayload(jws.payload, nowMs: clock())

        // 5. Chain.
        let chain: TrustedChain
        if let cached, cached.windowExcluding(payload.signedDateMs) == nil {
            chain = cached
        } else {
            chain = try await validateChain(certificates, parsed: parsed, signedDateMs: payload.signedDateMs)
        }
        let leafKey = chain.leafKey

        // 6. Signature.
        guard jws.signature.count == ES256.signatureByteCount else {
            throw .signatureNotRaw(byteCount: jws.signature.count)
        }
        guard ES256.isValid(signature: jws.signature, for: jws.signingInput, by: leafKey) else {
            throw .signatureMismatch
        }
        let headerEnd = jws.signingInput.firstIndex(of: UInt8(ascii: ".")) ?? jws.signingInput.startIndex
        cache.remember(header: jws.signingInput[..<headerEnd], chain: chain, type: jws.header["typ"]?.stringValue)
        return VerifiedSignedData(payload: jws.payload, signedDateMs: payload.signedDateMs, type: jws.header["typ"]?.stringValue)
    }

    /// The fast path for a JWS whose header is byte for byte one that passed every header and
    /// chain check before: only the payload (check 4), the validity windows at its signedDate and
    /// the signature (check 6) are left. Nil when the header is unknown, or when anything is off
    /// in a way the full path reports more precisely (it then runs and throws the exact error).
    private func verifyWithKnownHeader(_ compactJWS: String) throws(SignedDataError) -> VerifiedSignedData? {
        let bytes = Array(compactJWS.utf8)
        guard bytes.count <= CompactJWS.maximumByteCount,
            let first = bytes.firstIndex(of: UInt8(ascii: ".")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(second + 1)...].contains(UInt8(ascii: ".")),
            let known = cache.knownHeader(bytes[..<first]),
            let payloadBytes = Base64URL.decode(utf8: bytes[(first + 1)..<second]),
            let signature = Base64URL.decode(utf8: bytes[(second + 1)...])
        else { return nil }
        let payload = try SignedPayload(payloadBytes, nowMs: clock())
        let chain = known.chain
        guard chain.windowExcluding(payload.signedDateMs) == nil else { return nil }
        guard signature.count == ES256.signatureByteCount else {
            throw .signatureNotRaw(byteCount: signature.count)
        }
        guard ES256.isValid(signature: signature, for: bytes[..<second], by: chain.leafKey) else {
            throw .signatureMismatch
        }
        return VerifiedSignedData(payload: payloadBytes, signedDateMs: payload.signedDateMs, type: known.type)
    }

    /// Full validation at `signedDateMs`; a success is cached.
    private func validateChain(
        _ certificates: CertificateChainHeader,
        parsed: CertificateChainHeader.Parsed?,
        signedDateMs: Int64
    ) async throws(SignedDataError) -> TrustedChain {
        // A cached pair whose window excludes this signedDate is validated afresh: the cause is
        // then reported exactly as for an uncached chain (or another configured root may fit).
        let certificate: CertificateChainHeader.Parsed
        if let parsed {
            certificate = parsed
        } else {
            certificate = try certificates.parse()
        }
        cache.recordValidation()
        let chain = try await validator.validate(
            leaf: certificate.leaf,
            intermediate: certificate.intermediate,
            signedDateMs: signedDateMs
        )
        let trusted = TrustedChain(validated: chain, leafKey: certificate.leafKey)
        // swift-certificates compares validity in whole seconds; the windows hold milliseconds,
        // so a signedDate a few ms outside a certificate's validity is refused here, exactly as
        // on a cache hit.
        if let window = trusted.windowExcluding(signedDateMs) {
            throw window.error(signedDateMs: signedDateMs)
        }
        cache.store(trusted, for: certificates.cacheKey)
        return trusted
    }

    /// Full chain validations this verifier (and its copies) ran; a cache hit runs none.
    var chainValidationCount: Int {
        cache.validationCount
    }

    /// Chains currently cached.
    var cachedChainCount: Int {
        cache.count
    }
}

/// Why a root certificate configuration was refused.
public enum RootCertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No PEM block found, or a malformed one.
    case notPEM
    /// The PEM block at `index` (0-based) is not a parseable `CERTIFICATE`.
    case notACertificate(index: Int)

    public var description: String {
        switch self {
        case .notPEM: "root certificates: no well-formed PEM block found"
        case .notACertificate(let index): "root certificates: PEM block \(index) is not an X.509 certificate"
        }
    }
}
