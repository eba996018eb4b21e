/// What the simulator does with one request, and when: decided by `SimulatorRequestRouter`,
/// carried out on the connection by `SimulatorChannelHandler`.
struct SimulatorReply: Sendable {
    enum Action: Sendable {
        /// Send this response whole.
        case answer(SimulatedHTTPResponse)
        /// Send its headers (with the full Content-Length) and half its body, then close.
        case truncate(SimulatedHTTPResponse)
        /// Drop the connection with a TCP RST, sending nothing.
        case reset
    }

    /// How long to wait before acting (latency, extra latency and stalls together).
    var delay: Duration
    var action: Action
}
