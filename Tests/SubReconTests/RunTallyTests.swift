@testable import SubRecon
import SubReconModel
import Testing

/// What a run's answers add up to, without a store: the counts, the circuit breaker, the early end
/// and the status.
@Suite("RunTally")
struct RunTallyTests {
    let breaker = CircuitBreaker(window: 4, minimumSamples: 4, failureRatio: 0.75)

    @Test func everyOutcomeIsCounted() {
        var tally = RunTally(breaker: .standard)
        for outcome in [RunItemOutcome.updated, .unchanged, .updated, .skipped, .failed, .accountGone] {
            _ = tally.record(outcome)
        }
        #expect(tally.counts == [.updated: 2, .unchanged: 1, .skipped: 1, .failed: 1, .accountGone: 1])
        #expect(tally.processed == 6)
        #expect(tally.endedEarly == nil)
        #expect(tally.status(stoppedLanes: 0, of: 1) == .completed)
    }

    @Test func theBreakerOpensOnFailuresOnceAndAbortsTheRun() {
        var tally = RunTally(breaker: breaker)
        let opened = [RunItemOutcome.updated, .failed, .failed, .failed, .failed].map { tally.record($0) }
        // Three of the last four failed; said once.
        #expect(opened == [false, false, false, true, false])
        #expect(tally.endedEarly == .circuitBreakerOpen)
        #expect(tally.status(stoppedLanes: 0, of: 2) == .aborted)
    }

    @Test func skippedReceiptsDoNotCountForTheBreaker() {
        var tally = RunTally(breaker: breaker)
        for _ in 0..<3 { _ = tally.record(.failed) }
        // A skipped receipt says nothing about Apple: counted as an answer, it would make the
        // fourth sample and open the breaker (three of four failed); it is not one.
        let openedBySkipped = tally.record(.skipped)
        #expect(!openedBySkipped && tally.endedEarly == nil)
        let openedByFailure = tally.record(.failed)
        #expect(openedByFailure)
    }

    @Test func theFirstReasonToEndEarlyStays() {
        var tally = RunTally(breaker: .standard)
        tally.end(.signal("SIGTERM"))
        tally.end(.lostRunLock)
        #expect(tally.endedEarly == .signal("SIGTERM"))
        #expect(tally.status(stoppedLanes: 0, of: 1) == .interrupted)
        var lost = RunTally(breaker: .standard)
        lost.end(.lostRunLock)
        #expect(lost.status(stoppedLanes: 1, of: 2) == .interrupted)
    }

    @Test func theRunIsAbortedWhenAppleStoppedEveryApp() {
        let tally = RunTally(breaker: .standard)
        #expect(tally.status(stoppedLanes: 2, of: 2) == .aborted)
        #expect(tally.status(stoppedLanes: 1, of: 2) == .completed)
    }
}
