/// What a loopback handler sees of a request.
struct LoopbackRequest: Sendable {
    var method: String
    /// The request target as sent, e.g. `/chunked/65536`.
    var path: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The client's TCP port, which tells connections apart.
    var remotePort: Int?

    /// The first value of header `name` (any case).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What a loopback handler answers.
struct LoopbackResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// Send the body with chunked encoding, i.e. without a Content-Length, so only the client's
    /// byte counting can catch an oversized body.
    var chunked: Bool

    init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [], chunked: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.chunked = chunked
    }
}

/// A loopback server's request handler; it may take as long as it likes (it is cancelled when
/// the client goes away or the server stops).
typealias LoopbackHandler = @Sendable (LoopbackRequest) async throws -> LoopbackResponse
