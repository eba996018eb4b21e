import Foundation

/// One HTTP request, as the App Store client needs it: a POST of a small JSON body.
public struct HTTPRequest: Sendable {
    public var url: String
    public var method: String
    /// Header fields in order; names as written.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The whole exchange (connect, send, receive) must finish within this time.
    public var timeout: Duration

    public init(
        url: String, method: String = "POST", headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What came back: the HTTP status, the headers (names lower-cased) and the body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why an exchange produced no HTTP response. Each case reads as one operator-facing sentence.
public enum HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case timedOut(url: String)
    case connectionFailed(url: String, reason: String)
    case tlsFailed(url: String, reason: String)
    case responseTooLarge(url: String, limit: Int)
    case invalidURL(String)
    case transportFailed(url: String, reason: String)
    case shutDown

    public var description: String {
        switch self {
        case .timedOut(let url): return "no answer from \(url) within the request timeout"
        case .connectionFailed(let url, let reason): return "could not connect to \(url): \(reason)"
        case .tlsFailed(let url, let reason): return "TLS with \(url) failed (certificate not trusted?): \(reason)"
        case .responseTooLarge(let url, let limit): return "the answer from \(url) was larger than \(limit) bytes and was refused"
        case .invalidURL(let url): return "\(url) is not a valid http(s) URL"
        case .transportFailed(let url, let reason): return "HTTP exchange with \(url) failed: \(reason)"
        case .shutDown: return "the HTTP client was already shut down"
        }
    }
}

/// The seam between subrecon and the network. The live implementation is `CurlTransport`;
/// tests talk to the built-in App Store simulator over loopback through the same implementation.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse
}
