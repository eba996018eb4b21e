import AppStoreSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

struct HTTPResult: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var appleStatus: Int? { (try? DecodedAnswer(body))?.status }

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// A plain URLSession client (subrecon itself uses libcurl; this is only a test client).
func send(
    _ url: String, body: [UInt8] = [], method: String = "POST", timeout: TimeInterval = 10,
    session: URLSession = .shared
) async throws -> HTTPResult {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    if method == "POST" {
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    request.timeoutInterval = timeout
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        headers["\(key)"] = "\(value)"
    }
    return HTTPResult(status: http.statusCode, headers: headers, body: Array(data))
}

/// Starts a simulator for one test and always stops it.
func withSimulator<T>(
    _ options: SimulatorOptions = SimulatorOptions(sharedSecret: "secret"),
    _ body: (AppStoreSimulator) async throws -> T
) async throws -> T {
    let simulator = AppStoreSimulator(options: options)
    try await simulator.start()
    do {
        let result = try await body(simulator)
        await simulator.stop()
        return result
    } catch {
        await simulator.stop()
        throw error
    }
}

@Suite struct AppStoreSimulatorHTTPTests {
    let now: Int64 = 1_716_192_930_417
    var clockOptions: SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock)
    }

    func receiptBody(_ scenario: SimulatedScenario, id: Int64 = 1) -> [UInt8] {
        requestBody(SimulatedReceipt.encode(scenario.subscriber(id: id, nowMs: now)))
    }

    @Test func startsOnAFreePortAndAnswersBothEndpoints() async throws {
        try await withSimulator(clockOptions) { simulator in
            let port = simulator.listeningPort
            #expect(port != 0)
            #expect(simulator.productionURL == "http://127.0.0.1:\(port)/verifyReceipt")
            #expect(simulator.sandboxURL == "http://127.0.0.1:\(port)/sandbox/verifyReceipt")

            let production = try await send(simulator.productionURL, body: receiptBody(.active))
            #expect(production.status == 200)
            #expect(production.header("Content-Type") == "application/json")
            let decoded = try DecodedAnswer(production.body)
            #expect(decoded.status == 0)
            #expect(decoded.receipt?["request_date_ms"] as? String == String(now), "uses the configured clock")

            #expect(try await send(simulator.productionURL, body: receiptBody(.sandboxActive)).appleStatus == 21007)
            #expect(try await send(simulator.sandboxURL, body: receiptBody(.sandboxActive)).appleStatus == 0)
            #expect(try await send(simulator.sandboxURL, body: receiptBody(.active)).appleStatus == 21008)
            #expect(try await send(simulator.productionURL, body: receiptBody(.accountGone)).appleStatus == 21010)
            #expect(try await send(simulator.productionURL, body: requestBody("x", password: "nope")).appleStatus == 21002)
            let wrongSecret = requestBody(
                SimulatedReceipt.encode(SimulatedScenario.active.subscriber(id: 1, nowMs: now)), password: "nope")
            #expect(try await send(simulator.productionURL, body: wrongSecret).appleStatus == 21004)

            let statistics = simulator.statistics()
            #expect(statistics.productionRequests == 5)
            #expect(statistics.sandboxRequests == 2)
            #expect(statistics.answers(withAppleStatus: 0) == 2)
            #expect(statistics.answers(withAppleStatus: 21007) == 1)
            #expect(statistics.answersByHTTPStatus[200] == 7)
        }
    }

    @Test func onlyPostIsAccepted() async throws {
        try await withSimulator { simulator in
            let get = try await send(simulator.productionURL, method: "GET")
            #expect(get.status == 200)
            #expect(get.appleStatus == 21000)
            #expect(try await send(simulator.sandboxURL, method: "GET").appleStatus == 21000)
            let unknown = try await send(simulator.baseURL + "/nope", body: receiptBody(.active))
            #expect(unknown.status == 404)
            #expect(simulator.statistics().unknownPathRequests == 1)
            #expect(simulator.statistics().answers(withAppleStatus: 21000) == 2)
        }
    }

    @Test func keepAliveConnectionsServeManyRequests() async throws {
        try await withSimulator(clockOptions) { simulator in
            let port = simulator.listeningPort
            let bodies = [receiptBody(.active), receiptBody(.expired), receiptBody(.noSubscriptions)]
            let statuses = try await onDedicatedThread { () -> [Int?] in
                let connection = try RawHTTPConnection(port: port)
                var statuses: [Int?] = []
                for _ in 0..<10 {
                    for body in bodies {
                        connection.send(path: "/verifyReceipt", body: body)
                        let response = try connection.readResponse()
                        #expect(response.status == 200)
                        #expect(response.headers["connection"]?.lowercased() != "close")
                        statuses.append((try? DecodedAnswer(response.body))?.status)
                    }
                }
                return statuses
            }
            // One connection, 30 answers, none closing it. (The Nagle delay this once had is a speed
            // matter, measured by the benchmark (docs/performance.md), not asserted here.)
            #expect(statuses == Array(repeating: 0, count: 30))
        }
    }

    @Test func latencyDelaysAnswersWithoutSerialisingThem() async throws {
        let options = SimulatorOptions(sharedSecret: "secret", latency: .milliseconds(300))
        try await withSimulator(options) { simulator in
            let port = simulator.listeningPort
            let body = receiptBody(.active)
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                try await withThrowingTaskGroup(of: Int?.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            try await onDedicatedThread {
                                let connection = try RawHTTPConnection(port: port)
                                connection.send(path: "/verifyReceipt", body: body)
                                return (try? DecodedAnswer(try connection.readResponse().body))?.status
                            }
                        }
                    }
                    for try await status in group {
                        #expect(status == 0)
                    }
                }
            }
            // Every answer waited for the latency (a lower bound the sleep guarantees, not a speed claim).
            #expect(elapsed >= .milliseconds(300))
        }
    }

    @Test func requestBodiesUpTo256KBAreReadAndLargerOnesRefused() async throws {
        try await withSimulator(clockOptions) { simulator in
            let port = simulator.listeningPort
            let limit = 256 * 1024
            let padding = limit - requestBody("").count
            let largest = requestBody(String(repeating: "A", count: padding))
            let tooLarge = requestBody(String(repeating: "A", count: padding + 1))
            let valid = receiptBody(.active)
            let (accepted, refused, after) = try await onDedicatedThread { () -> (Int?, Int, Int?) in
                let connection = try RawHTTPConnection(port: port)
                connection.send(path: "/verifyReceipt", body: largest)
                let accepted = (try? DecodedAnswer(try connection.readResponse().body))?.status
                connection.send(path: "/verifyReceipt", body: tooLarge)
                let refused = try connection.readResponse().status
                // Announced by Content-Length, so it was refused without reading: the connection goes on.
                connection.send(path: "/verifyReceipt", body: valid)
                let after = (try? DecodedAnswer(try connection.readResponse().body))?.status
                return (accepted, refused, after)
            }
            #expect(largest.count == limit)
            #expect(accepted == 21002, "read whole and answered (not a simulator receipt)")
            #expect(refused == 413)
            #expect(after == 0)
            #expect(simulator.statistics().totalRequests == 2, "the refused one never reached the simulator")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withSimulator(clockOptions) { simulator in
            // The first answer is held back; the second must still come after it.
            simulator.setFaults(FaultPlan(extraLatency: .milliseconds(200)), forSubscriberID: 1)
            let port = simulator.listeningPort
            let slow = receiptBody(.active, id: 1)
            let fast = requestBody("not a receipt")
            let statuses = try await onDedicatedThread { () -> [Int?] in
                let connection = try RawHTTPConnection(port: port)
                connection.send(path: "/verifyReceipt", body: slow)
                connection.send(path: "/verifyReceipt", body: fast)
                return (0..<2).map { _ in (try? DecodedAnswer(try connection.readResponse().body))?.status }
            }
            #expect(statuses == [0, 21002])
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withSimulator(clockOptions) { simulator in
            let port = simulator.listeningPort
            let body = receiptBody(.active)
            let (response, next) = try await onDedicatedThread { () -> (RawHTTPConnection.Response, RawHTTPConnection.Failure?) in
                let connection = try RawHTTPConnection(port: port)
                connection.send(path: "/verifyReceipt", body: body, extraHeaders: "Connection: close\r\n")
                let response = try connection.readResponse()
                do {
                    _ = try connection.readResponse()
                    return (response, nil)
                } catch let failure as RawHTTPConnection.Failure {
                    return (response, failure)
                }
            }
            #expect(response.status == 200)
            #expect(response.headers["connection"]?.lowercased() == "close")
            #expect(next == .closed(received: [], reset: false), "the server closes after answering")
        }
    }

    @Test func stopReleasesThePort() async throws {
        let simulator = AppStoreSimulator(options: clockOptions)
        // Released: the same port can be bound again at once, by the same simulator restarting on
        // it. Another test's server asking for any free port may take it in between (rarely): a
        // port that is really kept fails every attempt, each on a port of its own.
        var rebound = false
        for _ in 0..<5 where !rebound {
            let port = try await simulator.start()
            #expect(try await send(simulator.productionURL, body: receiptBody(.active)).appleStatus == 0)
            await simulator.stop()
            #expect(simulator.listeningPort == 0)
            guard (try? await simulator.start(port: port)) == port else { continue }
            rebound = true
            #expect(try await send(simulator.productionURL, body: receiptBody(.active)).appleStatus == 0)
            await simulator.stop()
        }
        #expect(rebound, "the port was not free again after stop, five times")
    }

    @Test func startErrors() async throws {
        try await withSimulator { simulator in
            await #expect(throws: AppStoreSimulator.StartError.alreadyStarted) {
                try await simulator.start()
            }
            let other = AppStoreSimulator()
            await #expect(throws: (any Error).self) {
                try await other.start(port: simulator.listeningPort)
            }
        }
    }
}
