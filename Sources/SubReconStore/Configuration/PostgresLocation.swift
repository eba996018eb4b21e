import Foundation
import SubReconModel

/// A PostgreSQL database to connect to, from a `postgres://` or `postgresql://` URL
/// (`DatabaseLocation.resolve`) with its defaults applied:
///
/// - `user`: the URL's; a URL without one means the operating-system user running subrecon, as
///   for libpq (psql).
/// - `password`: the URL's, percent-decoded (RFC 3986, as libpq reads it), or the first line of
///   `SUBRECON_DB_PASSWORD_FILE`; nil when neither gives one (trust authentication, client
///   certificates). An empty password counts as none.
/// - `port`: 5432 unless the URL gives one.
/// - `tls`: the URL's `sslmode`; without it a loopback host (127.0.0.0/8, ::1, localhost) is reached
///   without TLS and any other host with TLS required. `sslrootcert=PATH` goes with
///   `sslmode=verify-full`, and the file must be readable. With `sslmode=require` it is tolerated,
///   so a URL copied from a libpq setup still works, but not used: a warning says the server's
///   certificate is not checked (libpq would check its chain) and that verify-full checks it.
///   With `disable`, or without `sslmode`, it is a configuration error: nothing would use it.
///
/// The password never shows: `masked`, `description`, `debugDescription` and `dump` give the URL
/// with the password replaced by `***`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// A name or an address; an IPv6 address without brackets.
    public let host: String
    public let port: Int
    public let user: String
    public let password: String?
    public let database: String
    public let tls: PostgresTLSMode
    /// The URL as given with its password replaced by `***` (unchanged when it has none), for
    /// messages and logs. A location made with `init(host:...)` shows a URL made from its parts.
    public private(set) var masked: String

    public static let defaultPort = 5432

    /// A location from its parts; `tls` nil means the default for `host` (see the type's comment).
    public init(
        host: String, port: Int = PostgresLocation.defaultPort, user: String, password: String? = nil, database: String,
        tls: PostgresTLSMode? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls ?? Self.defaultTLS(host: host)
        var url = "postgres://" + Self.encoded(user) + (password == nil ? "" : ":***") + "@"
        url += (host.contains(":") ? "[\(host)]" : Self.encoded(host)) + ":\(port)/" + Self.encoded(database)
        url += "?sslmode=" + self.tls.sslmode
        if case .verifyFull(let path?) = self.tls { url += "&sslrootcert=" + Self.encoded(path, keeping: "/") }
        masked = url
    }

    /// The location a parsed URL names. `password` is the URL's or the file's (the caller has
    /// refused both at once); `defaultUser` is asked only when the URL names no user.
    package init(_ url: PostgresURL, password: String?, defaultUser: () -> String?, warnings: inout [String])
        throws(ConfigurationError)
    {
        func problem(_ what: String) -> ConfigurationError { .invalidDatabaseURL(maskedURL: url.masked, problem: what) }
        guard let user = url.user ?? defaultUser() else {
            throw .other(
                "the database URL \(url.masked) names no user and the operating-system user's name is unknown; "
                    + "put USER@ before the host")
        }
        let sslmode = url.parameters["sslmode"]
        let rootCertificate = url.parameters["sslrootcert"]
        if let sslmode, !PostgresTLSMode.sslmodes.contains(sslmode) {
            throw problem("has an unknown sslmode \"\(sslmode)\" (disable, require or verify-full)")
        }
        if rootCertificate == "" { throw problem("has an empty sslrootcert") }
        let tls: PostgresTLSMode
        switch (sslmode, rootCertificate) {
        case ("verify-full", let path):
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw .other("cannot read the root certificate file \(path) (sslrootcert in the database URL \(url.masked))")
            }
            tls = .verifyFull(rootCertificatePath: path)
        case ("require", let path):
            if let path {
                warnings.append(
                    "the database URL \(url.masked) gives sslrootcert with sslmode=require: the server's certificate is not "
                        + "checked against \(path); use sslmode=verify-full to check it and the server's name")
            }
            tls = .require
        case (_, _?):
            throw problem("has sslrootcert without sslmode=verify-full, the mode that uses it")
        case ("disable", nil):
            tls = .disable
        default:
            tls = Self.defaultTLS(host: url.host)
        }
        self.init(host: url.host, port: url.port ?? Self.defaultPort, user: user, password: password, database: url.database, tls: tls)
        masked = url.masked
    }

    /// Without `sslmode`: no TLS on loopback, TLS required anywhere else.
    package static func defaultTLS(host: String) -> PostgresTLSMode { isLoopback(host) ? .disable : .require }

    /// localhost, 127.0.0.0/8 or ::1 (also as ::ffff:127.x.y.z).
    public static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { $0[0] == 127 } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in
            let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
            return loopback || mapped
        }
    }

    /// The name of the operating-system user this process runs as (libpq's default user), if known.
    public static func operatingSystemUserName() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        return buffer.withUnsafeMutableBufferPointer { storage -> String? in
            guard let base = storage.baseAddress, getpwuid_r(geteuid(), &entry, base, storage.count, &found) == 0, found != nil,
                let name = entry.pw_name
            else { return nil }
            let text = String(cString: name)
            return text.isEmpty ? nil : text
        }
    }

    /// Percent-encodes all but RFC 3986's unreserved characters (and `keeping`).
    private static func encoded(_ text: String, keeping: String = "") -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" + keeping)
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Two locations are equal when they connect alike, however their URLs were spelled.
    public static func == (lhs: PostgresLocation, rhs: PostgresLocation) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.user == rhs.user && lhs.password == rhs.password
            && lhs.database == rhs.database && lhs.tls == rhs.tls
    }

    public var description: String { masked }
    public var debugDescription: String { masked }
    /// Keeps `dump()` and reflection from listing the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "masked": masked, "host": host, "port": port, "user": user, "password": password == nil ? "nil" : "***",
                "database": database, "tls": tls,
            ])
    }
}
