import AppleSignedData
import Foundation
import SubReconHTTP
import Synchronization

/// What `connections` keep-alive connections POSTing bodies back to back for a while got: every
/// answer's latency and status (or transport error).
struct ReceiverLoad {
    /// Latencies in microseconds, sorted.
    let latenciesMicros: [Int]
    /// "200", "503", "error: …", with how many times each.
    let outcomes: [String: Int]
    let seconds: Double
    /// With `sendEachOnce`: the bodies ran out before the time was up (the load outran them).
    let ranOut: Bool

    var requests: Int { latenciesMicros.count }

    /// One lane per connection, each sending its next body as soon as the last was answered
    /// (closed loop), until `duration` has passed; with `sendEachOnce`, also until every body has
    /// been sent once (none twice: each request is then a new notification). With `rate` (open
    /// loop), request N is due N ÷ rate seconds after the start and sent then by a free lane; its
    /// latency counts from when it was due, so a receiver that falls behind shows it in the
    /// latencies rather than by slowing the load down.
    static func drive(
        url: String, bodies: [[UInt8]], connections: Int, duration: Duration, sendEachOnce: Bool = false,
        rate: Double? = nil
    ) async -> ReceiverLoad {
        let transport = CurlTransport(maxConnections: connections)
        defer { transport.shutdown() }
        let watch = Stopwatch()
        let counter = BodyCounter()
        let start = ContinuousClock.now
        let deadline = start + duration
        let lanes = await withTaskGroup(of: ([Int], [String: Int], Bool).self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var latencies: [Int] = []
                    var outcomes: [String: Int] = [:]
                    var ranOut = false
                    while ContinuousClock.now < deadline {
                        // The next body of all lanes together, so no lane runs out while another has some.
                        var index = counter.next()
                        if sendEachOnce, index >= bodies.count {
                            ranOut = true
                            break
                        }
                        let due = rate.map { start + .microseconds(Int64(Double(index) * 1_000_000 / $0)) }
                        if let due {
                            if due >= deadline { break }
                            try? await Task.sleep(until: due, clock: .continuous)
                        }
                        index %= bodies.count
                        let request = HTTPRequest(
                            url: url, headers: [("Content-Type", "application/json")], body: bodies[index],
                            timeout: .seconds(30))
                        let sent = due ?? ContinuousClock.now
                        let outcome: String
                        do {
                            outcome = String(try await transport.send(request).status)
                        } catch {
                            outcome = "error: \(error)"
                        }
                        let elapsed = ContinuousClock.now - sent
                        latencies.append(Int(elapsed.nanoseconds / 1_000))
                        outcomes[outcome, default: 0] += 1
                    }
                    return (latencies, outcomes, ranOut)
                }
            }
            var all: [([Int], [String: Int], Bool)] = []
            for await lane in group { all.append(lane) }
            return all
        }
        let seconds = watch.seconds
        return ReceiverLoad(
            latenciesMicros: lanes.flatMap(\.0).sorted(),
            outcomes: lanes.reduce(into: [:]) { total, lane in total.merge(lane.1, uniquingKeysWith: +) },
            seconds: seconds, ranOut: lanes.contains { $0.2 })
    }

    /// The latency below which `fraction` of the answers came, in milliseconds.
    func percentileMilliseconds(_ fraction: Double) -> Double {
        guard !latenciesMicros.isEmpty else { return 0 }
        let index = min(latenciesMicros.count - 1, Int((Double(latenciesMicros.count - 1) * fraction).rounded(.up)))
        return Double(latenciesMicros[index]) / 1000
    }
}

/// The lanes' shared position in the bodies.
private final class BodyCounter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}
