import Foundation
import SubReconModel

/// The syntax of a PostgreSQL URL, read as libpq reads it (RFC 3986):
/// `postgres[ql]://[USER[:PASSWORD]@]HOST[:PORT]/DBNAME[?NAME=VALUE&...]`, split into its parts and
/// percent-decoded. What the parts mean (defaults, TLS) is `PostgresLocation`'s business.
///
/// Stricter than libpq where a slip could move part of a password to where it is shown: a raw `@`
/// may appear once, before the host, and `#` not at all, so a password with an unencoded `@`, `/`,
/// `?` or `#` is refused rather than read as host, database or query. Every error shows the URL
/// `mask`ed and never quotes the user name or the password.
package struct PostgresURL: Equatable {
    /// nil when absent or empty (libpq treats an empty value as absent).
    package var user: String?
    package var password: String?
    /// Without the brackets of an IPv6 address.
    package var host: String
    package var port: Int?
    package var database: String
    /// Percent-decoded; each name at most once, and only one of `parameterNames`.
    package var parameters: [String: String] = [:]
    /// The text parsed, `mask`ed.
    package var masked: String

    package static let schemes = ["postgres", "postgresql"]
    package static let parameterNames: Set<String> = ["sslmode", "sslrootcert"]

    package init(parsing text: String) throws(ConfigurationError) {
        let masked = Self.mask(text)
        self.masked = masked
        func problem(_ what: String) -> ConfigurationError { .invalidDatabaseURL(maskedURL: masked, problem: what) }
        func decoded(_ part: Substring, _ what: String) throws(ConfigurationError) -> String? {
            guard let value = Self.percentDecoded(part) else {
                throw problem(
                    "has a bad percent-encoding in the \(what) (% must be followed by two hex digits, not %00; write % itself as %25)")
            }
            return value.isEmpty ? nil : value
        }
        guard let schemeEnd = text.range(of: "://"), Self.schemes.contains(text[..<schemeEnd.lowerBound].lowercased()) else {
            throw problem("does not start with postgres:// or postgresql://")
        }
        let rest = text[schemeEnd.upperBound...]
        let encodeAdvice = "in a user name or password, percent-encode @ as %40, / as %2F, ? as %3F and # as %23"
        guard !rest.contains("#") else { throw problem("has a # (PostgreSQL URLs have no fragment); " + encodeAdvice) }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        guard !tail.contains("@") else { throw problem("has an @ after the host; " + encodeAdvice) }
        guard authority.filter({ $0 == "@" }).count <= 1 else { throw problem("has more than one @; " + encodeAdvice) }

        var hostAndPort = authority
        if let at = authority.firstIndex(of: "@") {
            let userInfo = authority[..<at]
            let colon = userInfo.firstIndex(of: ":")
            user = try decoded(userInfo[..<(colon ?? userInfo.endIndex)], "user name")
            if let colon { password = try decoded(userInfo[userInfo.index(after: colon)...], "password") }
            hostAndPort = authority[authority.index(after: at)...]
        }

        var portText: Substring?
        if hostAndPort.first == "[" {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw problem("has an IPv6 address without its closing ]") }
            let address = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            guard Self.isIPv6Address(address) else { throw problem("has a bad IPv6 address in brackets") }
            host = address
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if after.first == ":" {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw problem("has something other than :PORT after the IPv6 address's ]")
            }
        } else {
            let pieces = hostAndPort.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else {
                throw problem("has more than one : after the @ (write an IPv6 address in brackets, as [::1])")
            }
            guard let name = try decoded(pieces[0], "host") else { throw problem("has no host") }
            guard !name.contains(",") else { throw problem("names several hosts; give one") }
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                throw problem("has a host name with characters other than letters, digits, -, . and _")
            }
            host = name
            portText = pieces.count == 2 ? pieces[1] : nil
        }
        if let portText {
            guard portText.utf8.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                (1...65535).contains(value)
            else { throw problem("has a bad port \"\(portText)\" (a whole number from 1 to 65535)") }
            port = value
        }

        let pathEnd = tail.firstIndex(of: "?") ?? tail.endIndex
        guard tail.first == "/", let name = try decoded(tail[tail.index(after: tail.startIndex)..<pathEnd], "database name") else {
            throw problem("has no database name (/DBNAME after the host)")
        }
        database = name

        guard pathEnd < tail.endIndex else { return }
        for item in tail[tail.index(after: pathEnd)...].split(separator: "&") {
            guard let equals = item.firstIndex(of: "=") else { throw problem("has a query parameter without =VALUE") }
            let name = try decoded(item[..<equals], "query") ?? ""
            let value = try decoded(item[item.index(after: equals)...], "query") ?? ""
            guard Self.parameterNames.contains(name) else {
                if name == "password" {
                    throw problem("has a password parameter: put the password before the @, or in SUBRECON_DB_PASSWORD_FILE")
                }
                // A name is quoted only when it cannot be a stray piece of something secret.
                let quoted = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } ? " \"\(name)\"" : ""
                throw problem("has an unknown parameter\(quoted) (only sslmode and sslrootcert are accepted)")
            }
            guard parameters[name] == nil else { throw problem("gives \(name) twice") }
            parameters[name] = value
        }
    }

    /// `text` with the password replaced by `***` (no password: unchanged), and the values of query
    /// parameters other than sslmode and sslrootcert too. Safe for any text, a malformed URL included:
    /// the password is taken to run from the first `:` after the scheme to the last `@`, so even a
    /// password with an unencoded `@`, `/` or `?` is covered whole.
    package static func mask(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        var result = String(text[..<schemeEnd.upperBound])
        var rest = text[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":"), userInfo.index(after: colon) < userInfo.endIndex {
                result += String(userInfo[...colon]) + "***"
            } else {
                result += userInfo
            }
            rest = rest[at...]
        }
        guard let question = rest.firstIndex(of: "?") else { return result + rest }
        result += rest[...question]
        let items = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return item.isEmpty ? "" : "***" }
            return parameterNames.contains(String(item[..<equals])) ? String(item) : String(item[...equals]) + "***"
        }
        return result + items.joined(separator: "&")
    }

    /// RFC 3986 percent-decoding as libpq does it: nil for a `%` not followed by two hex digits,
    /// for `%00`, or for bytes that are not UTF-8.
    package static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue), high | low != 0 else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    package static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
