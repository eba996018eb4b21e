import Synchronization

/// The accounts the Server API side knows. verifyReceipt needs none (each receipt carries its
/// account), but the Server API is asked by transaction id, so the simulator must find an
/// account from any of its transaction ids.
///
/// Transaction ids are derived from (subscriber id, slot, index) by `SimulatedIdentifiers`, so
/// the index is the subscriber id itself (modulo `SimulatedIdentifiers.subscriberModulus`): one
/// entry per account covers every transaction id it has now and every renewal it will get as
/// the clock moves, at constant memory per account. Whether a given index exists *at now* is
/// decided by the responder from the account's timeline. Registering an account with the same
/// id again replaces it.
final class SimulatedAccountRegistry: Sendable {
    /// Where a transaction id points inside its account.
    struct Reference: Sendable, Hashable {
        /// Subscription slot (`SimulatedIdentifiers.consumableSlot` for the consumable).
        var slot: Int
        /// Transaction index within the slot (modulo 1,000,000, like the ids).
        var index: Int64
    }

    private let accounts = Mutex<[Int64: SimulatedSubscriber]>([:])
    /// Bumped by every change, so what is derived from all accounts (the sales reports' day
    /// index) knows when to derive it again.
    /// Changed only under `accounts`' lock, so a snapshot's count matches its accounts.
    private let changes = Atomic<Int>(0)

    /// Adds or replaces `subscriber`.
    func register(_ subscriber: SimulatedSubscriber) {
        let key = Self.key(subscriber.id)
        accounts.withLock {
            $0[key] = subscriber
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Adds `subscriber` unless an account with its id is known (the verifyReceipt path calls
    /// this for every receipt it decodes, so it stays a lookup once the account is known).
    func registerIfAbsent(_ subscriber: SimulatedSubscriber) {
        let key = Self.key(subscriber.id)
        accounts.withLock { accounts in
            guard accounts[key] == nil else { return }
            accounts[key] = subscriber
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Counts changes: an equal count means the same accounts.
    var generation: Int { changes.load(ordering: .sequentiallyConsistent) }

    /// Every known account (in no particular order), with the `generation` they are.
    func snapshot() -> (accounts: [SimulatedSubscriber], generation: Int) {
        accounts.withLock { (Array($0.values), changes.load(ordering: .sequentiallyConsistent)) }
    }

    /// Number of known accounts.
    var count: Int { accounts.withLock { $0.count } }

    /// Forgets every account.
    func removeAll() {
        accounts.withLock {
            $0.removeAll()
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// The account `transactionID` belongs to and where in it, or nil when no known account can
    /// have that id.
    func lookUp(transactionID: Int64) -> (SimulatedSubscriber, Reference)? {
        guard let parts = Self.parse(transactionID: transactionID) else { return nil }
        guard let subscriber = accounts.withLock({ $0[parts.subscriberKey] }) else { return nil }
        return (subscriber, Reference(slot: parts.slot, index: parts.index))
    }

    /// Inverse of `SimulatedIdentifiers.transactionID`.
    static func parse(transactionID: Int64) -> (subscriberKey: Int64, slot: Int, index: Int64)? {
        let base: Int64 = 100_000_000_000_000_000
        guard transactionID >= base, transactionID < 2 * base else { return nil }
        let local = transactionID - base
        return (local / 10_000_000, Int(local / 1_000_000 % 10), local % 1_000_000)
    }

    /// The registry's key of a subscriber id (ids are unique modulo `SimulatedIdentifiers.subscriberModulus`).
    static func key(_ subscriberID: Int64) -> Int64 {
        let rest = subscriberID % SimulatedIdentifiers.subscriberModulus
        return rest < 0 ? rest + SimulatedIdentifiers.subscriberModulus : rest
    }
}
