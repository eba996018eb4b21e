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
///
/// It also keeps the tokens set through Set App Account Token: Apple's record of the purchase,
/// above what the receipt says, so a set token stays when the account is registered again
/// (with a later state) and shows in every answer about it until `removeAll`.
final class SimulatedAccountRegistry: Sendable {
    /// Where a transaction id points inside its account.
    struct Reference: Sendable, Hashable {
        /// Subscription slot (`SimulatedIdentifiers.consumableSlot` for the consumable).
        var slot: Int
        /// Transaction index within the slot (modulo 1,000,000, like the ids).
        var index: Int64
    }

    private struct State {
        var accounts: [Int64: SimulatedSubscriber] = [:]
        /// Set App Account Token's tokens by account key, applied over the registered accounts'.
        var appAccountTokens: [Int64: String] = [:]
        /// Every successful Set App Account Token, oldest first.
        var appAccountTokenSets: [AppAccountTokenSet] = []

        func account(_ key: Int64) -> SimulatedSubscriber? {
            guard var subscriber = accounts[key] else { return nil }
            if let token = appAccountTokens[key] { subscriber.appAccountToken = token }
            return subscriber
        }
    }

    private let state = Mutex(State())
    /// Bumped by every change, so what is derived from all accounts (the sales reports' day
    /// index) knows when to derive it again.
    /// Changed only under `state`'s lock, so a snapshot's count matches its accounts.
    private let changes = Atomic<Int>(0)

    /// Adds or replaces `subscriber`.
    func register(_ subscriber: SimulatedSubscriber) {
        let key = Self.key(subscriber.id)
        state.withLock {
            $0.accounts[key] = subscriber
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Adds `subscriber` unless an account with its id is known (the verifyReceipt path calls
    /// this for every receipt it decodes, so it stays a lookup once the account is known).
    /// Answers the token Set App Account Token set for the account, if any, which verifyReceipt
    /// shows over the receipt's.
    @discardableResult
    func registerIfAbsent(_ subscriber: SimulatedSubscriber) -> String? {
        let key = Self.key(subscriber.id)
        return state.withLock { state in
            if state.accounts[key] == nil {
                state.accounts[key] = subscriber
                changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
            return state.appAccountTokens[key]
        }
    }

    /// The token Set App Account Token set for the account with `subscriberID`, if any.
    func appAccountToken(setForSubscriberID subscriberID: Int64) -> String? {
        let key = Self.key(subscriberID)
        return state.withLock { $0.appAccountTokens[key] }
    }

    /// Records a successful Set App Account Token: the account's answers carry its token from now on.
    func record(_ set: AppAccountTokenSet) {
        let key = Self.key(set.subscriberID)
        state.withLock {
            $0.appAccountTokens[key] = set.appAccountToken
            $0.appAccountTokenSets.append(set)
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Every successful Set App Account Token since the last `removeAll`, oldest first.
    func appAccountTokenSets() -> [AppAccountTokenSet] {
        state.withLock { $0.appAccountTokenSets }
    }

    /// Counts changes: an equal count means the same accounts.
    var generation: Int { changes.load(ordering: .sequentiallyConsistent) }

    /// Every known account (in no particular order), with the `generation` they are.
    func snapshot() -> (accounts: [SimulatedSubscriber], generation: Int) {
        state.withLock { state in
            let accounts = state.appAccountTokens.isEmpty
                ? Array(state.accounts.values) : state.accounts.keys.compactMap(state.account)
            return (accounts, changes.load(ordering: .sequentiallyConsistent))
        }
    }

    /// Number of known accounts.
    var count: Int { state.withLock { $0.accounts.count } }

    /// Forgets every account, and every token set for them.
    func removeAll() {
        state.withLock {
            $0 = State()
            changes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        }
    }

    /// The account `transactionID` belongs to (with any token set for it) and where in it, or nil
    /// when no known account can have that id.
    func lookUp(transactionID: Int64) -> (SimulatedSubscriber, Reference)? {
        guard let parts = Self.parse(transactionID: transactionID) else { return nil }
        guard let subscriber = state.withLock({ $0.account(parts.subscriberKey) }) else { return nil }
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
