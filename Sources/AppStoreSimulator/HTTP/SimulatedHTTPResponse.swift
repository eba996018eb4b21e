/// An HTTP answer from the simulator's pure core, before it goes on the wire.
public struct SimulatedHTTPResponse: Sendable, Hashable {
    /// The HTTP status code (Apple answers 200 even for error statuses).
    public var httpStatus: Int
    /// Response headers.
    public var headers: [String: String]
    /// The response body.
    public var body: [UInt8]
    /// The `status` inside the body, or nil when the body is not an Apple JSON answer.
    public var appleStatus: Int?

    public init(httpStatus: Int, headers: [String: String], body: [UInt8], appleStatus: Int?) {
        self.httpStatus = httpStatus
        self.headers = headers
        self.body = body
        self.appleStatus = appleStatus
    }
}
