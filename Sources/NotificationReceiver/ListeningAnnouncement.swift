import Synchronization

/// Tells whoever waits the URL the server bound (the port is only known then when 0 was asked),
/// or nil when the server stopped, or failed to bind, before listening.
final class ListeningAnnouncement: Sendable {
    private enum State {
        case waiting([CheckedContinuation<String?, Never>])
        case announced(String?)
    }

    private let state = Mutex(State.waiting([]))

    func listening(at url: String) { finish(url) }

    func stopped() { finish(nil) }

    func wait() async -> String? {
        await withCheckedContinuation { continuation in
            let known: String?? = state.withLock { state in
                switch state {
                case .announced(let url):
                    return .some(url)
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return .none
                }
            }
            if case .some(let url) = known { continuation.resume(returning: url) }
        }
    }

    /// The first announcement wins: a stop after listening keeps the URL known.
    private func finish(_ url: String?) {
        let waiters: [CheckedContinuation<String?, Never>] = state.withLock { state in
            guard case .waiting(let waiters) = state else { return [] }
            state = .announced(url)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: url) }
    }
}
