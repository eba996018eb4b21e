/// A JWS that passed every check of ``SignedDataVerifier``: its payload is Apple's, signed at
/// `signedDateMs` by a leaf chaining to a configured root. Content checks (bundle id,
/// environment, …) are the caller's.
public struct VerifiedSignedData: Sendable, Equatable {
    /// The payload's JSON bytes, exactly as signed.
    public let payload: [UInt8]
    /// The payload's `signedDate`, Unix milliseconds; the chain was validated at this time.
    public let signedDateMs: Int64
    /// The header's `typ`, if any (Apple sometimes sends `JWT`; it carries no meaning).
    public let type: String?

    public init(payload: [UInt8], signedDateMs: Int64, type: String?) {
        self.payload = payload
        self.signedDateMs = signedDateMs
        self.type = type
    }
}
