import SwiftASN1
import X509

/// RFC 5280's key identifier rules as strict X.509 verifiers enforce them (OpenSSL's
/// `X509_STRICT`, which Apple's own App Store Server Libraries turn on): the leaf and the
/// intermediate carry an Authority Key Identifier naming their issuer's Subject Key Identifier,
/// and the intermediate and the root carry a Subject Key Identifier. swift-certificates'
/// `RFC5280Policy` does not check these, so without this policy subrecon would accept chains that
/// a backend using Apple's library refuses. Apple's real chain meets them.
///
/// Names longer than RFC 5280's upper bounds are not refused: OpenSSL's strict mode accepts them.
struct KeyIdentifierPolicy: VerifierPolicy, Sendable {
    /// Which rule a chain breaks, and on which certificate.
    enum Violation: Equatable {
        case missingAuthorityKeyIdentifier(SignedDataError.CertificateRole)
        case missingSubjectKeyIdentifier(SignedDataError.CertificateRole)
        /// The certificate's AKI names another key than its issuer's SKI.
        case authorityKeyIdentifierMismatch(SignedDataError.CertificateRole)

        var error: SignedDataError {
            switch self {
            case .missingAuthorityKeyIdentifier(let role): .missingAuthorityKeyIdentifier(role)
            case .missingSubjectKeyIdentifier(let role): .missingSubjectKeyIdentifier(role)
            case .authorityKeyIdentifierMismatch(let role): .authorityKeyIdentifierMismatch(role)
            }
        }
    }

    // Both identifiers must be non-critical (RFC 5280 §4.2.1.1–2); a critical one stays unhandled,
    // so the verifier refuses it.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The first rule `chain` (leaf, intermediate, root) breaks, or nil. A chain of another length
    /// is `AppleMarkerPolicy`'s to refuse.
    static func violation(in chain: some RandomAccessCollection<Certificate>) -> Violation? {
        let certificates = Array(chain)
        guard certificates.count == AppleMarkerPolicy.chainLength else { return nil }
        let roles: [SignedDataError.CertificateRole] = [.leaf, .intermediate, .root]
        // An unparseable identifier counts as missing.
        let subjectKeyIDs = certificates.map { try? $0.extensions.subjectKeyIdentifier?.keyIdentifier }
        for index in 1...2 where subjectKeyIDs[index] == nil {
            return .missingSubjectKeyIdentifier(roles[index])
        }
        for index in 0...1 {
            guard let authority = try? certificates[index].extensions.authorityKeyIdentifier?.keyIdentifier else {
                return .missingAuthorityKeyIdentifier(roles[index])
            }
            if authority != subjectKeyIDs[index + 1] { return .authorityKeyIdentifierMismatch(roles[index]) }
        }
        return nil
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard let violation = Self.violation(in: chain) else { return .meetsPolicy }
        return .failsToMeetPolicy(reason: "KeyIdentifierPolicy: \(violation.error.description)")
    }
}
