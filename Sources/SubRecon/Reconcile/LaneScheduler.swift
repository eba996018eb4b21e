import SubReconModel

/// Which app's lane starts the next verification of a run: the lane with the fewest receipts in
/// flight, among those that still have receipts and that Apple has not stopped, while the run's
/// `--limit` allows. So every app keeps its share of the window whatever the order its receipts
/// are due in, and one app's rate budget never holds up another's. Counts only: the run pulls
/// the receipt from the chosen lane's cursor.
struct LaneScheduler: Sendable {
    /// A lane Apple stopped, and why.
    typealias StoppedLane = (lane: Int, problem: RunStoppingProblem)

    /// Verifications in flight, every lane's together.
    private(set) var inFlight = 0
    private var laneInFlight: [Int]
    private var exhausted: [Bool]
    /// Why Apple stopped each lane's work (21004, a 401), nil while it goes on.
    private var stopped: [RunStoppingProblem?]
    /// What `--limit` still allows for the run as a whole.
    private var remaining: Int

    init(lanes: Int, limit: Int?) {
        laneInFlight = Array(repeating: 0, count: lanes)
        exhausted = Array(repeating: false, count: lanes)
        stopped = Array(repeating: nil, count: lanes)
        remaining = limit ?? .max
    }

    /// The lane to start a verification from next; nil when none may (the limit is reached, or
    /// every lane ran out of receipts or was stopped).
    func nextLane() -> Int? {
        guard remaining > 0 else { return nil }
        var next: Int?
        for index in laneInFlight.indices where !exhausted[index] && stopped[index] == nil {
            if next.map({ laneInFlight[index] < laneInFlight[$0] }) ?? true { next = index }
        }
        return next
    }

    /// `lane` has no receipt left to start.
    mutating func exhaust(_ lane: Int) { exhausted[lane] = true }

    /// A verification of `lane` started.
    mutating func start(_ lane: Int) {
        remaining -= 1
        laneInFlight[lane] += 1
        inFlight += 1
    }

    /// A verification of `lane` answered.
    mutating func finish(_ lane: Int) {
        laneInFlight[lane] -= 1
        inFlight -= 1
    }

    /// Apple stopped `lane`'s work: nothing more starts there. True the first time only (the
    /// one time to say why).
    mutating func stop(_ lane: Int, by problem: RunStoppingProblem) -> Bool {
        guard stopped[lane] == nil else { return false }
        stopped[lane] = problem
        return true
    }

    /// Why Apple stopped `lane`, if it did.
    func stoppedBy(_ lane: Int) -> RunStoppingProblem? { stopped[lane] }

    /// The lanes Apple stopped, in lane order, each with why.
    var stoppedLanes: [StoppedLane] {
        stopped.indices.compactMap { index in stopped[index].map { (index, $0) } }
    }
}
