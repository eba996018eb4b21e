import Foundation
import Synchronization

/// Memoised successful chain validations, shared by every copy of a ``SignedDataVerifier``.
/// Keyed by the exact DER bytes of the leaf and the intermediate. Only successes are stored,
/// never a signature result; each hit is re-checked against the payload's signedDate by the
/// caller. Bounded: the oldest entry goes first.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        let leaf: [UInt8]
        let intermediate: [UInt8]

        // Whole buffers at once: `[UInt8]`'s own hashing feeds the hasher one byte at a time,
        // which showed up in profiles (~1 KB per certificate, every JWS).
        func hash(into hasher: inout Hasher) {
            leaf.withUnsafeBytes { hasher.combine(bytes: $0) }
            intermediate.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// A header (its exact base64url text) that passed checks 1–3 and 5 with a chain that is
    /// cached: the same bytes always decode to the same `alg`, `x5c` and members, so a JWS with
    /// this header only needs its payload, validity windows and signature checked.
    private struct KnownHeader {
        let text: [UInt8]
        let chain: TrustedChain
        /// The header's `typ`, passed on as the full path would.
        let type: String?
    }

    private struct State {
        var entries: [Key: TrustedChain] = [:]
        var insertionOrder: [Key] = []
        var validations = 0
        var knownHeaders: [KnownHeader] = []
    }

    /// Apple signs with one or two chains at a time; a short list compared byte for byte is
    /// cheaper than hashing ~4.7 KB of header per JWS.
    static let knownHeaderCapacity = 8

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

    /// The chain a JWS header with exactly these bytes was validated with, if any.
    func knownHeader(_ text: ArraySlice<UInt8>) -> (chain: TrustedChain, type: String?)? {
        // The list is copied out under the lock (one retain) and compared outside it: every
        // verifying task asks twice per answer, and ~4.7 KB compared under the lock made them queue.
        let knownHeaders = state.withLock { $0.knownHeaders }
        return text.withUnsafeBytes { wanted in
            for known in knownHeaders where known.text.count == wanted.count {
                let same = known.text.withUnsafeBytes { memcmp($0.baseAddress!, wanted.baseAddress!, wanted.count) == 0 }
                if same { return (known.chain, known.type) }
            }
            return nil
        }
    }

    /// Remembers a header that passed every header and chain check with `chain`.
    func remember(header text: ArraySlice<UInt8>, chain: TrustedChain, type: String?) {
        guard !text.isEmpty else { return }
        state.withLock { state in
            if state.knownHeaders.contains(where: { $0.text.elementsEqual(text) }) { return }
            if state.knownHeaders.count >= Self.knownHeaderCapacity { state.knownHeaders.removeFirst() }
            state.knownHeaders.append(KnownHeader(text: Array(text), chain: chain, type: type))
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
