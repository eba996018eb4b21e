@testable import SubRecon
import SubReconModel
import Testing

/// Which app's lane a run starts next, without a store: the fewest in flight first, never an
/// exhausted or stopped lane, never past the limit.
@Suite("LaneScheduler")
struct LaneSchedulerTests {
    @Test func theLaneWithTheFewestInFlightGoesNextTheFirstOnATie() {
        var scheduler = LaneScheduler(lanes: 3, limit: nil)
        #expect(scheduler.nextLane() == 0)
        scheduler.start(0)
        #expect(scheduler.nextLane() == 1)
        scheduler.start(1)
        scheduler.start(2)
        scheduler.start(0)
        #expect(scheduler.nextLane() == 1)
        scheduler.finish(0)
        scheduler.finish(0)
        #expect(scheduler.nextLane() == 0)
        #expect(scheduler.inFlight == 2)
    }

    @Test func anExhaustedLaneIsSkippedAndNoLaneIsLeftWhenAllAre() {
        var scheduler = LaneScheduler(lanes: 2, limit: nil)
        scheduler.exhaust(0)
        #expect(scheduler.nextLane() == 1)
        scheduler.start(1)
        scheduler.start(1)
        #expect(scheduler.nextLane() == 1, "the other lane has nothing to start")
        scheduler.exhaust(1)
        #expect(scheduler.nextLane() == nil)
    }

    @Test func aStoppedLaneStartsNothingAndIsReportedOnceWithWhy() {
        var scheduler = LaneScheduler(lanes: 3, limit: nil)
        let first = scheduler.stop(1, by: .sharedSecretMismatch)
        let again = scheduler.stop(1, by: .requestRejected)
        #expect(first && !again, "reported once; the first reason stays")
        #expect(scheduler.stoppedBy(1) == .sharedSecretMismatch)
        #expect(scheduler.stoppedBy(0) == nil)
        scheduler.start(0)
        #expect(scheduler.nextLane() == 2)
        let other = scheduler.stop(2, by: .requestRejected)
        #expect(other)
        #expect(scheduler.nextLane() == 0)
        #expect(scheduler.stoppedLanes.map(\.lane) == [1, 2])
        #expect(scheduler.stoppedLanes.map(\.problem) == [.sharedSecretMismatch, .requestRejected])
    }

    @Test func theLimitBoundsTheRunAsAWholeNotEachLane() {
        var scheduler = LaneScheduler(lanes: 2, limit: 3)
        var started: [Int] = []
        while let lane = scheduler.nextLane() {
            scheduler.start(lane)
            started.append(lane)
        }
        #expect(started == [0, 1, 0])
        scheduler.finish(0)
        #expect(scheduler.nextLane() == nil, "an answer frees a slot, not the limit")
        #expect(LaneScheduler(lanes: 1, limit: 0).nextLane() == nil)
    }
}
