/// Where an app's events are POSTed: an `https://` URL, or `http://` only to a loopback host
/// (127.0.0.0/8, `::1`, `localhost`: a sidecar, or tests), so that events and signatures never
/// cross a network in clear. The text is kept as given: its path and query are used as they are.
public struct WebhookEndpointURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL exactly as configured.
    public var text: String
    /// Lower-case `http` or `https`.
    public var scheme: String
    /// The host, without the brackets of an IPv6 literal.
    public var host: String
    public var port: Int?

    public var description: String { text }
    public var isLoopback: Bool { Self.isLoopback(host: host) }

    /// `text` checked; `setting` names where it came from (a variable and flag, or an apps-file
    /// key and app) in the error.
    public init(_ text: String, setting: String) throws(ConfigurationError) {
        func invalid(_ problem: String) -> ConfigurationError {
            .other("\(setting) must be an https:// URL (or http:// to 127.0.0.1, ::1 or localhost), but \"\(text)\" \(problem)")
        }
        // The URL goes into a request line as it is: no white space, no control or non-ASCII characters.
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }) else {
            throw invalid("is empty or holds spaces, control or non-ASCII characters")
        }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            scheme = "https"
            rest = text.dropFirst("https://".count)
        } else if lower.hasPrefix("http://") {
            scheme = "http"
            rest = text.dropFirst("http://".count)
        } else {
            throw invalid("has another scheme")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // user:password@ would put a credential where logs and messages show the URL; the
        // signature is what authenticates us to the receiver.
        guard !authority.contains("@") else { throw invalid("has a user name or password in it (the signature authenticates us)") }
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("has no closing ] after its IPv6 host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("has something other than :PORT after its IPv6 host") }
                portPart = after.dropFirst()
            }
            guard Self.ipv6Groups(hostPart) != nil else { throw invalid("has a malformed IPv6 host") }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) else {
                throw invalid("has no host, or a malformed one")
            }
        }
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isNumber }), let port = Int(portPart),
                (1...65535).contains(port)
            else { throw invalid("has a port that is not a number from 1 to 65535") }
            self.port = port
        }
        host = String(hostPart)
        self.text = text
        guard scheme == "https" || Self.isLoopback(host: host) else {
            throw invalid("sends events in clear to a host that is not loopback; use https://")
        }
    }

    /// 127.0.0.0/8 in dotted-quad form, the IPv6 loopback in any spelling, or `localhost`.
    /// `0.0.0.0` is not loopback (it may reach the host's other addresses).
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" { return true }
        if let groups = ipv6Groups(Substring(host)) { return groups == [0, 0, 0, 0, 0, 0, 0, 1] }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4,
            octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 })
        else { return false }
        return octets[0] == "127"
    }

    /// The eight 16-bit groups of an IPv6 address (`::` shorthand allowed; no zone, no embedded
    /// IPv4); nil when `text` is not one.
    static func ipv6Groups(_ text: Substring) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var values: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), group.allSatisfy(\.isHexDigit), let value = UInt16(group, radix: 16) else {
                    return nil
                }
                values.append(value)
            }
            return values
        }
        guard text.contains(":") else { return nil }
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        switch halves.count {
        case 1:
            guard let all = groups(text), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(halves[0]), let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }
}
