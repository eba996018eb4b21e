import AppleSignedData
import Foundation
import Logging
import SubReconHTTP
import Synchronization
import Testing

@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel

/// A cancelled `notifications backfill` stops: it neither swallows the cancellation in a retry's
/// wait (asking Apple again at once, as `try? await Task.sleep` did) nor walks on through the pages.
/// Apple is a scripted transport here; the store is a real one.
@Suite struct NotificationBackfillCancellationTests {
    /// Gives every request the same answer, after `delay` (not cut short by a cancellation), and counts them.
    final class SameAnswer: HTTPTransport {
        let answer: HTTPResponse
        let delay: Duration
        private let count = Mutex(0)
        init(_ answer: HTTPResponse, delay: Duration = .zero) {
            self.answer = answer
            self.delay = delay
        }
        var requests: Int { count.withLock { $0 } }
        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            count.withLock { $0 += 1 }
            if delay > .zero { try? await Task.sleep(for: delay) }
            return answer
        }
    }

    static func backfill(_ world: TestWorld, transport: SameAnswer) throws -> NotificationBackfill {
        NotificationBackfill(
            transport: transport, endpoints: ServerAPIEndpoints(production: "https://api.test", sandbox: "https://sandbox.test"),
            tokens: BearerTokenProvider(key: world.apiKey, clock: { WallClock.unixMilliseconds() }),
            limiter: APIRateLimiter(requestsPerSecond: 0), processor: try world.notificationProcessor(),
            // Long waits and many attempts: a swallowed cancellation would ask again and again.
            retryPolicy: RetryPolicy(maxAttempts: 50, baseDelay: .seconds(30), maxDelay: .seconds(30)),
            clockMs: world.clock.millisecondsClock, logger: Logger(label: "test"))
    }

    /// Runs a backfill of the last day in a task, cancels it once Apple was asked `after` times,
    /// and returns how it ended.
    static func cancelled(
        _ world: TestWorld, _ transport: SameAnswer, after requests: Int
    ) async throws -> Result<NotificationBackfill.Summary, NotificationBackfill.Failure> {
        let backfill = try backfill(world, transport: transport)
        let now = world.clock.nowMs
        let task = Task { () -> Result<NotificationBackfill.Summary, NotificationBackfill.Failure> in
            do throws(NotificationBackfill.Failure) {
                return .success(try await backfill.run(sinceMs: now - 86_400_000, untilMs: now, environment: .production))
            } catch {
                return .failure(error)
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while transport.requests < requests, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        return await task.value
    }

    @Test func aCancelledRetryWaitStopsTheBackfill() async throws {
        let world = try await TestWorld.make()
        do {
            let transport = SameAnswer(HTTPResponse(status: 503, body: []))
            let started = ContinuousClock.now
            let result = try await Self.cancelled(world, transport, after: 1)
            #expect(ContinuousClock.now - started < .seconds(20))
            guard case .failure(.cancelled(let summary)) = result else {
                Issue.record("not stopped by the cancellation: \(result)")
                await world.close()
                return
            }
            #expect(summary.pages == 0)
            #expect(transport.requests == 1)
            #expect(NotificationBackfill.Failure.cancelled(summary).exitStatus == .interrupted)
        } catch {
            Issue.record(error)
        }
        await world.close()
    }

    @Test func aCancelledBackfillAsksForNoFurtherPage() async throws {
        let world = try await TestWorld.make()
        do {
            // Apple would say there is always more.
            let endless = #"{"hasMore":true,"paginationToken":"more","notificationHistory":[]}"#
            let transport = SameAnswer(HTTPResponse(status: 200, body: Array(endless.utf8)), delay: .milliseconds(20))
            let result = try await Self.cancelled(world, transport, after: 3)
            guard case .failure(.cancelled(let summary)) = result else {
                Issue.record("not stopped by the cancellation: \(result)")
                await world.close()
                return
            }
            #expect(summary.pages >= 3)
            #expect(summary.pages < 50)
            #expect(transport.requests == summary.pages)
        } catch {
            Issue.record(error)
        }
        await world.close()
    }
}
