import Dispatch
import Foundation

/// A request to stop a run gracefully: no new receipts are started, receipts in flight finish
/// (or stay due), and the run is recorded as interrupted. SIGTERM and SIGINT raise it; a second
/// signal exits at once (every receipt's writes are one transaction, so nothing is half-written),
/// with 128 + the signal as shells report it (130, 143), as the graceful stop does.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var raised: String?
    private var sources: [any DispatchSourceSignal] = []

    public init() {}

    /// Why the stop was requested, or nil while the run may go on.
    public var reason: String? { lock.withLock { raised } }

    /// The signal `reason` names ("SIGTERM", "SIGINT"), or nil.
    public static func signal(named reason: String) -> Int32? {
        switch reason {
        case "SIGTERM": SIGTERM
        case "SIGINT": SIGINT
        default: nil
        }
    }

    public func raise(_ reason: String) {
        lock.withLock { if raised == nil { raised = reason } }
    }

    /// Routes SIGTERM and SIGINT here. Unblocks them first: a parent (a test runner, some
    /// supervisors) may have left them blocked, and a blocked SIGTERM would never stop the run.
    public func installSignalHandlers() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT] {
            sigaddset(&set, signal)
            Foundation.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if self.reason != nil { exit(128 + signal) }
                self.raise(signal == SIGTERM ? "SIGTERM" : "SIGINT")
            }
            source.resume()
            lock.withLock { sources.append(source) }
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
