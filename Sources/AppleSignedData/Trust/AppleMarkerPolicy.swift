import SwiftASN1
import X509

/// Apple's chain rules on top of RFC 5280 (as in Apple's own `ChainVerifier`): exactly leaf,
/// intermediate and root; the intermediate carries the WWDR marker extension and the leaf the
/// receipt-signing marker. Only presence is checked, not the extension value.
struct AppleMarkerPolicy: VerifierPolicy, Sendable {
    /// Apple Worldwide Developer Relations intermediate marker.
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// Mac App Store and iTunes Store receipt-signing leaf marker.
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let chainLength = 3

    /// Which of Apple's rules a chain breaks.
    enum Violation: Equatable {
        case length(Int)
        case intermediateMarker
        case leafMarker

        var error: SignedDataError {
            switch self {
            case .length(let count): .chainLengthNot3(count)
            case .intermediateMarker: .intermediateMissingAppleMarker
            case .leafMarker: .leafMissingAppleMarker
            }
        }
    }

    // The markers are plain (non-critical) extensions; nothing critical is handled here.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The first rule `chain` (leaf first) breaks, or nil.
    static func violation(in chain: some RandomAccessCollection<Certificate>) -> Violation? {
        guard chain.count == chainLength else { return .length(chain.count) }
        let certificates = Array(chain)
        if !certificates[1].extensions.contains(where: { $0.oid == intermediateMarker }) {
            return .intermediateMarker
        }
        if !certificates[0].extensions.contains(where: { $0.oid == leafMarker }) {
            return .leafMarker
        }
        return nil
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard let violation = Self.violation(in: chain) else { return .meetsPolicy }
        return .failsToMeetPolicy(reason: "AppleMarkerPolicy: \(violation.error.description)")
    }
}
