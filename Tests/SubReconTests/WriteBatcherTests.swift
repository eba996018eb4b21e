@testable import SubRecon
import Testing

/// When a run writes the answers it holds, without a store or a clock of its own: full, alone,
/// or waited long enough.
@Suite("WriteBatcher")
struct WriteBatcherTests {
    let start = ContinuousClock.now

    @Test func aFullBatchIsDueAndTakenInOrder() {
        var batcher = WriteBatcher<Int>(maxCount: 3, maxDelay: .milliseconds(200), now: start)
        for answer in 1...2 { batcher.add(answer, now: start) }
        #expect(!batcher.isDue(idle: false, now: start))
        batcher.add(3, now: start)
        #expect(batcher.isDue(idle: false, now: start))
        #expect(batcher.take() == [1, 2, 3])
        #expect(batcher.isEmpty && batcher.count == 0)
    }

    @Test func anAnswerWithNothingElseInFlightIsDueAtOnce() {
        var batcher = WriteBatcher<Int>(maxCount: 128, maxDelay: .milliseconds(200), now: start)
        batcher.add(1, now: start)
        #expect(batcher.isDue(idle: true, now: start))
        #expect(!batcher.isDue(idle: false, now: start))
    }

    @Test func aBatchIsDueWhenItsOldestAnswerWaitedTheDelay() {
        var batcher = WriteBatcher<Int>(maxCount: 128, maxDelay: .milliseconds(200), now: start)
        batcher.add(1, now: start)
        // A later answer does not restart the wait.
        batcher.add(2, now: start + .milliseconds(150))
        #expect(!batcher.isDue(idle: false, now: start + .milliseconds(199)))
        #expect(batcher.isDue(idle: false, now: start + .milliseconds(200)))
        _ = batcher.take()
        // The next batch's wait starts with its own first answer.
        batcher.add(3, now: start + .milliseconds(300))
        #expect(!batcher.isDue(idle: false, now: start + .milliseconds(450)))
        #expect(batcher.isDue(idle: false, now: start + .milliseconds(500)))
    }

    @Test func theClockIsNotReadForAnAnswerJoiningABatch() {
        var batcher = WriteBatcher<Int>(maxCount: 2, maxDelay: .milliseconds(200), now: start)
        var reads = 0
        func now() -> ContinuousClock.Instant {
            reads += 1
            return start
        }
        batcher.add(1, now: now())
        batcher.add(2, now: now())
        let due = batcher.isDue(idle: false, now: now())
        #expect(due && reads == 1, "read for the first answer only")
    }
}
