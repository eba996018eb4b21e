import Synchronization

/// Memoised successful chain validations, shared by every copy of a ``SignedDataVerifier``.
/// Keyed by the exact DER bytes of the leaf and the intermediate. Only successes are stored,
/// never a signature result; each hit is re-checked against the payload's signedDate by the
/// caller. Bounded: the oldest entry goes first.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        let leaf: [UInt8]
        let intermediate: [UInt8]
    }

    private struct State {
        var entries: [Key: TrustedChain] = [:]
        var insertionOrder: [Key] = []
        var validations = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 64) {
        precondition(capacity > 0, "a chain cache holds at least one entry")
        self.capacity = capacity
    }

    func lookup(_ key: Key) -> TrustedChain? {
        state.withLock { $0.entries[key] }
    }

    func store(_ chain: TrustedChain, for key: Key) {
        state.withLock { state in
            guard state.entries.updateValue(chain, forKey: key) == nil else { return }
            state.insertionOrder.append(key)
            if state.insertionOrder.count > capacity {
                state.entries[state.insertionOrder.removeFirst()] = nil
            }
        }
    }

    /// Counts one full chain validation (successful or not).
    func recordValidation() {
        state.withLock { $0.validations += 1 }
    }

    /// Full chain validations run so far (tests check that a hit runs none).
    var validationCount: Int {
        state.withLock { $0.validations }
    }

    var count: Int {
        state.withLock { $0.entries.count }
    }
}
