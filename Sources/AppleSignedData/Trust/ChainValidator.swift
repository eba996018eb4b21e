// RFC5280Policy(validationTime:) is deprecated in swift-certificates 1.21 in favour of this SPI
// initializer, which does the same: check expiry at a fixed time (here the payload's signedDate).
@_spi(FixedExpiryValidationTime) import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Full chain validation with swift-certificates: leaf through the given intermediate to one of
/// the configured roots, RFC 5280 at the payload's signedDate plus ``AppleMarkerPolicy`` and,
/// when strict, ``KeyIdentifierPolicy``. The root in the JWS (`x5c[2]`) is never offered to the
/// chain builder.
struct ChainValidator: Sendable {
    let roots: CertificateStore
    /// Whether chains must carry the key identifiers strict verifiers demand.
    var requiresKeyIdentifiers = true

    /// The validated chain, leaf first, or the error naming the failed rule.
    func validate(
        leaf: Certificate,
        intermediate: Certificate,
        signedDateMs: Int64
    ) async throws(SignedDataError) -> [Certificate] {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: Date(unixMilliseconds: signedDateMs))
            AppleMarkerPolicy()
            if requiresKeyIdentifiers { KeyIdentifierPolicy() }
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let chain):
            return Array(chain)
        case .couldNotValidate(let failures):
            throw Self.classify(failures, signedDateMs: signedDateMs, requiresKeyIdentifiers: requiresKeyIdentifiers)
        }
    }

    /// Names the failed rule. No candidate chain at all means nothing linked the leaf to a
    /// configured root. Otherwise the longest candidate is examined in the documented order:
    /// validity at signedDate, then Apple's rules, then the key identifiers, then whatever RFC 5280
    /// said.
    static func classify(
        _ failures: [CertificateValidationResult.PolicyFailure],
        signedDateMs: Int64,
        requiresKeyIdentifiers: Bool
    ) -> SignedDataError {
        guard let failure = failures.max(by: { $0.chain.count < $1.chain.count }) else {
            return .untrustedChain
        }
        let chain = Array(failure.chain)
        let roles: [SignedDataError.CertificateRole] = chain.count == 3 ? [.leaf, .intermediate, .root] : [.leaf, .root]
        for (certificate, role) in zip(chain, roles) {
            let window = ValidityWindow(certificate, role: role)
            if !window.contains(signedDateMs) {
                return window.error(signedDateMs: signedDateMs)
            }
        }
        if let violation = AppleMarkerPolicy.violation(in: chain) {
            return violation.error
        }
        if requiresKeyIdentifiers, let violation = KeyIdentifierPolicy.violation(in: chain) {
            return violation.error
        }
        return .chainRejected(reason: failure.policyFailureReason.description)
    }
}
