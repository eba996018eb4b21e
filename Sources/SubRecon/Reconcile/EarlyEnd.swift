/// Why a run stopped before every selected receipt was verified.
enum EarlyEnd: Sendable, Equatable, CustomStringConvertible {
    case signal(String)
    case lostRunLock
    case circuitBreakerOpen

    /// The signal that ended the run, if one did.
    var signal: Int32? {
        if case .signal(let name) = self { StopSignal.signal(named: name) } else { nil }
    }

    var description: String {
        switch self {
        case .signal(let name): "received \(name)"
        case .lostRunLock: "lost the run lock to another process"
        case .circuitBreakerOpen: "most recent receipts got no usable answer (is Apple down?); circuit breaker open"
        }
    }
}
