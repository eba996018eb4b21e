import Crypto

/// How the simulator serves App Store Connect's Sales and Trends reports (`GET /v1/salesReports`).
public struct SalesReportOptions: Sendable {
    /// The account's vendor number (`filter[vendorNumber]`); any other is refused as Apple does.
    public var vendorNumber: String
    /// The public key of the *team* App Store Connect API key the client signs with. When set,
    /// every request needs its bearer JWT (see `AppStoreConnectBearerVerifier`), else 401.
    /// Nil accepts any request.
    public var ascPublicKeyX963: [UInt8]?
    /// The one `filter[version]` accepted; any other (or none) is a 400 naming this one, as
    /// Apple's drift from `1_0` to `1_1` looked (start with `1_1` to test a client's retry).
    public var acceptedVersion: String
    /// Requests per hour of the simulated clock before 429 (`X-Rate-Limit`'s `user-hour-lim`).
    public var hourlyLimit: Int
    /// Answered one per request, in order, before the normal answer (after the bearer check).
    public var faults: [SalesReportFault]

    /// `ascPublicKeyX963` as a key.
    public var ascPublicKey: P256.Signing.PublicKey? {
        get { ascPublicKeyX963.flatMap { try? P256.Signing.PublicKey(x963Representation: $0) } }
        set { ascPublicKeyX963 = newValue.map { Array($0.x963Representation) } }
    }

    public init(
        vendorNumber: String = SalesReportOptions.defaultVendorNumber,
        ascPublicKey: P256.Signing.PublicKey? = nil,
        acceptedVersion: String = "1_0",
        hourlyLimit: Int = 3600,
        faults: [SalesReportFault] = []
    ) {
        self.vendorNumber = vendorNumber
        self.ascPublicKeyX963 = ascPublicKey.map { Array($0.x963Representation) }
        self.acceptedVersion = acceptedVersion
        self.hourlyLimit = hourlyLimit
        self.faults = faults
    }

    /// The vendor number of Apple's own examples.
    public static let defaultVendorNumber = "80012345"
}
