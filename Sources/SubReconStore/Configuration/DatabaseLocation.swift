import Foundation
import SubReconModel

/// Where subrecon keeps its data (`SUBRECON_DB` / `--db`): a SQLite file on one machine, or a
/// PostgreSQL database beyond it. Printing one never shows a password.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// The location `text` names, with the password from `passwordFile` (`SUBRECON_DB_PASSWORD_FILE`)
    /// for PostgreSQL.
    ///
    /// - A `postgres://` or `postgresql://` URL (scheme in any case, surrounding blanks ignored) is
    ///   PostgreSQL; see `PostgresLocation` for its defaults. A malformed one is a configuration error
    ///   showing the URL masked.
    /// - Any other `SCHEME://...` is a configuration error too (a mistyped scheme would otherwise be
    ///   taken for a file path and, password and all, shown in the error that the folder is missing).
    /// - Anything else is a SQLite path, exactly as given, as before.
    ///
    /// `passwordFile`: its first line, without surrounding blanks and not percent-decoded, is the
    /// password (a password beginning or ending with a blank goes in the URL, percent-encoded);
    /// group- or world-readable gives a warning, as the shared secret file does. A URL with a password
    /// as well is a configuration error. With a SQLite path the file is ignored without a word: it
    /// applies to whichever side of a command is PostgreSQL, so one setting serves a copy from a
    /// SQLite file to PostgreSQL, and a SQLite setup that keeps it set is not disturbed.
    public static func resolve(_ text: String, passwordFile: String?, warnings: inout [String])
        throws(ConfigurationError) -> DatabaseLocation
    {
        try resolve(text, passwordFile: passwordFile, defaultUser: PostgresLocation.operatingSystemUserName, warnings: &warnings)
    }

    /// `resolve`, with the user a URL without one stands for given (for tests).
    package static func resolve(_ text: String, passwordFile: String?, defaultUser: () -> String?, warnings: inout [String])
        throws(ConfigurationError) -> DatabaseLocation
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let scheme = urlScheme(trimmed) else { return .sqlite(path: text) }
        guard PostgresURL.schemes.contains(scheme.lowercased()) else {
            throw .invalidDatabaseURL(
                maskedURL: PostgresURL.mask(trimmed),
                problem: "is not a PostgreSQL URL (SUBRECON_DB / --db takes a SQLite file path or a postgres:// URL)")
        }
        let url = try PostgresURL(parsing: trimmed)
        var password = url.password
        if let passwordFile {
            guard password == nil else { throw .bothDatabasePasswordSourcesSet(maskedURL: url.masked) }
            password = try SecretFile.firstLine(
                ofSecretFile: passwordFile, what: "the database password file", warnings: &warnings,
                unreadable: { .databasePasswordFileUnreadable(path: passwordFile, reason: $0) },
                empty: .databasePasswordFileEmpty(path: passwordFile))
        }
        return .postgres(try PostgresLocation(url, password: password, defaultUser: defaultUser, warnings: &warnings))
    }

    /// The scheme of `SCHEME://...` (RFC 3986: a letter, then letters, digits, +, - or .), else nil.
    package static func urlScheme(_ text: String) -> Substring? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme
    }

    /// The SQLite path, or the PostgreSQL URL masked.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.masked
        }
    }

    public var debugDescription: String { description }
}
