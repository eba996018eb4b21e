import SubReconModel

/// How a PostgreSQL connection uses TLS: the URL's `sslmode`, or its default.
///
/// libpq's `allow`, `prefer` and `verify-ca` are not offered: TLS is either off or required, and
/// a certificate that is checked is checked with the server's name too.
public enum PostgresTLSMode: Sendable, Equatable {
    /// No TLS: the default for a loopback host (127.0.0.0/8, ::1, localhost).
    case disable
    /// TLS required, the server's certificate not checked: the default for any other host.
    case require
    /// TLS required, the server's certificate checked against `rootCertificatePath` (PEM; the
    /// system's trusted roots when nil) and its name against the host.
    case verifyFull(rootCertificatePath: String?)

    /// The value of `sslmode` that asks for this mode.
    public var sslmode: String {
        switch self {
        case .disable: "disable"
        case .require: "require"
        case .verifyFull: "verify-full"
        }
    }

    /// The values `sslmode` takes.
    public static let sslmodes = ["disable", "require", "verify-full"]
}
