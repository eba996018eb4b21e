import Synchronization

/// The simulator's listening port, shared with the handler (which exists before the port is known).
final class ListeningPort: Sendable {
    private let storage = Atomic<UInt16>(0)

    var value: UInt16 {
        get { storage.load(ordering: .relaxed) }
        set { storage.store(newValue, ordering: .relaxed) }
    }
}
