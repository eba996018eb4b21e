import Synchronization

/// Holds the active fault plans and each subscriber's position in them.
final class FaultInjector: Sendable {
    /// Cursor key for requests whose receipt could not be decoded (no subscriber id).
    static let unknownSubscriber = Int64.min

    private struct State {
        var global: FaultPlan?
        var perSubscriber: [Int64: FaultPlan] = [:]
        /// Requests seen so far under the current plan, per subscriber (global and own plans separately).
        var globalCursors: [Int64: Int] = [:]
        var ownCursors: [Int64: Int] = [:]
    }

    private let state = Mutex(State())

    func setGlobal(_ plan: FaultPlan?) {
        state.withLock {
            $0.global = plan
            $0.globalCursors = [:]
        }
    }

    func set(_ plan: FaultPlan?, forSubscriberID id: Int64) {
        state.withLock {
            $0.perSubscriber[id] = plan
            $0.ownCursors[id] = nil
        }
    }

    func clear() {
        state.withLock { $0 = State() }
    }

    /// What the next request for `subscriberID` gets: extra latency and a step (`.answer` = normal).
    func next(for subscriberID: Int64?) -> (extraLatency: Duration, step: FaultStep) {
        let id = subscriberID ?? Self.unknownSubscriber
        return state.withLock { state in
            if let plan = state.perSubscriber[id] {
                return (plan.extraLatency, Self.advance(plan, cursor: &state.ownCursors[id, default: 0]))
            }
            guard let plan = state.global, plan.selects(subscriberID: id) else {
                return (.zero, .answer)
            }
            if plan.steps.isEmpty {
                return (plan.extraLatency, .answer)
            }
            return (plan.extraLatency, Self.advance(plan, cursor: &state.globalCursors[id, default: 0]))
        }
    }

    private static func advance(_ plan: FaultPlan, cursor: inout Int) -> FaultStep {
        guard !plan.steps.isEmpty else { return .answer }
        if cursor < plan.steps.count {
            defer { cursor += 1 }
            return plan.steps[cursor]
        }
        guard plan.repeats else { return .answer }
        defer { cursor = (cursor + 1) % plan.steps.count + plan.steps.count }
        return plan.steps[cursor % plan.steps.count]
    }
}
