/// One scripted misbehaviour for one request (see `FaultPlan`).
public enum FaultStep: Sendable, Hashable {
    /// Answer normally (lets a sequence say "fail, then succeed, then fail").
    case answer
    /// HTTP 200 with this Apple `status` (e.g. 21005, 21009, 21104) instead of the real answer;
    /// `isRetryable` adds `is_retryable` (nil: the default for that status, see `VerifyReceiptResponder`).
    case appleStatus(Int, isRetryable: Bool? = nil)
    /// A non-200 HTTP answer (e.g. 503, 429) with an optional `Retry-After` header in seconds.
    case httpError(Int, retryAfterSeconds: Int? = nil)
    /// Wait this long before answering normally (use longer than the client's timeout). A stall
    /// past `SimulatorOptions.requestTimeout` ends with HTTP 500 at that timeout.
    case stall(Duration)
    /// Send the real answer's headers (with its full Content-Length) and about half its body, then close.
    case truncatedBody
    /// Drop the connection without sending anything: a TCP RST (SO_LINGER 0), so the client reads ECONNRESET.
    case connectionReset
    /// HTTP 200 with an HTML error page instead of JSON.
    case nonJSONBody

    /// Name used in `SimulatorStatistics.faultsInjected`.
    public var name: String {
        switch self {
        case .answer: "answer"
        case .appleStatus(let status, _): "appleStatus.\(status)"
        case .httpError(let code, _): "httpError.\(code)"
        case .stall: "stall"
        case .truncatedBody: "truncatedBody"
        case .connectionReset: "connectionReset"
        case .nonJSONBody: "nonJSONBody"
        }
    }
}
