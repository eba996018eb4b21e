import Crypto
import X509

/// What a successful chain validation establishes, and all a cache hit needs: the leaf's key
/// and the validity window of the leaf, the intermediate and the root that was used.
struct TrustedChain: Sendable {
    var leafKey: P256.Signing.PublicKey {
        sharedLeafKey.key
    }
    private let sharedLeafKey: SharedKey<P256.Signing.PublicKey>
    let windows: [ValidityWindow]

    /// From a validated chain (leaf, intermediate, root) whose leaf has a P-256 key.
    init(validated chain: [Certificate], leafKey: P256.Signing.PublicKey) {
        sharedLeafKey = SharedKey(leafKey)
        let roles: [SignedDataError.CertificateRole] = [.leaf, .intermediate, .root]
        windows = zip(chain, roles).map { ValidityWindow($0, role: $1) }
    }

    /// The first certificate not valid at `unixMs`, or nil if all are.
    func windowExcluding(_ unixMs: Int64) -> ValidityWindow? {
        windows.first { !$0.contains(unixMs) }
    }
}
