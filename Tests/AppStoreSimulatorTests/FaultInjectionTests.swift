@testable import AppStoreSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct FaultInjectionTests {
    let now: Int64 = 1_716_192_930_417

    var options: SimulatorOptions {
        SimulatorOptions(sharedSecret: "secret", clock: SimulatedClock(nowMs: now).millisecondsClock)
    }

    func body(id: Int64, _ scenario: SimulatedScenario = .active) -> [UInt8] {
        requestBody(SimulatedReceipt.encode(scenario.subscriber(id: id, nowMs: now)))
    }

    @Test func appleStatusSequenceIsPerSubscriber() async throws {
        try await withSimulator(options) { simulator in
            simulator.setFaults(.appleStatuses([21005, 0]), forSubscriberID: 1)
            let url = simulator.productionURL
            #expect(try await send(url, body: body(id: 2)).appleStatus == 0, "other subscribers are untouched")
            let first = try await send(url, body: body(id: 1))
            #expect(first.status == 200)
            #expect(first.appleStatus == 21005)
            #expect(try await send(url, body: body(id: 1)).appleStatus == 0)
            #expect(try await send(url, body: body(id: 1)).appleStatus == 0, "sequence used up: real answers")
            #expect(simulator.statistics().faultsInjected["appleStatus.21005"] == 1)
            #expect(simulator.statistics().answers(withAppleStatus: 21005) == 1)
        }
    }

    @Test func globalPlanGivesEverySubscriberItsOwnCursor() async throws {
        try await withSimulator(options) { simulator in
            simulator.setGlobalFaults(.appleStatuses([21104], isRetryable: true))
            let url = simulator.productionURL
            for id in Int64(1)...3 {
                let failed = try await send(url, body: body(id: id))
                #expect(failed.appleStatus == 21104)
                #expect(try DecodedAnswer(failed.body).object["is_retryable"] as? Bool == true)
                #expect(try DecodedAnswer(failed.body).environment == "Production")
                #expect(try await send(url, body: body(id: id)).appleStatus == 0, "fail once, then succeed")
            }
            // A per-subscriber plan wins over the global one.
            simulator.setFaults(.always(.appleStatus(21009)), forSubscriberID: 9)
            for _ in 0..<3 {
                #expect(try await send(url, body: body(id: 9)).appleStatus == 21009)
            }
            simulator.setFaults(nil, forSubscriberID: 9)
            #expect(try await send(url, body: body(id: 9)).appleStatus == 21104, "back on the global plan")
            simulator.clearFaults()
            #expect(try await send(url, body: body(id: 10)).appleStatus == 0)
        }
    }

    @Test(arguments: [503, 429])
    func httpErrorsCarryRetryAfter(code: Int) async throws {
        try await withSimulator(options) { simulator in
            simulator.setGlobalFaults(FaultPlan(steps: [.httpError(code, retryAfterSeconds: 7)]))
            let failed = try await send(simulator.productionURL, body: body(id: 1))
            #expect(failed.status == code)
            #expect(failed.header("Retry-After") == "7")
            #expect(failed.appleStatus == nil)
            #expect(try await send(simulator.productionURL, body: body(id: 1)).appleStatus == 0)
            #expect(simulator.statistics().answersByHTTPStatus[code] == 1)
        }
    }

    @Test func nonJSONBody() async throws {
        try await withSimulator(options) { simulator in
            simulator.setFaults(FaultPlan(steps: [.nonJSONBody]), forSubscriberID: 1)
            let answer = try await send(simulator.productionURL, body: body(id: 1))
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "text/html")
            #expect((try? JSONSerialization.jsonObject(with: Data(answer.body))) == nil)
        }
    }

    @Test func stallOutlastsTheClientTimeout() async throws {
        try await withSimulator(options) { simulator throws in
            simulator.setFaults(FaultPlan(steps: [.stall(.seconds(5))]), forSubscriberID: 1)
            await #expect(throws: (any Error).self) {
                _ = try await send(simulator.productionURL, body: body(id: 1), timeout: 0.5)
            }
            // Other requests are not held up by the stalled one.
            #expect(try await send(simulator.productionURL, body: body(id: 2), timeout: 2).appleStatus == 0)
        }
    }

    @Test func stallBeyondTheRequestTimeoutEndsWith500() async throws {
        var options = self.options
        options.requestTimeout = .seconds(1)
        try await withSimulator(options) { simulator in
            simulator.setFaults(FaultPlan(steps: [.stall(.seconds(10))]), forSubscriberID: 1)
            let answer = try await send(simulator.productionURL, body: body(id: 1), timeout: 8)
            #expect(answer.status == 500)
        }
    }

    @Test func extraLatencyIsAddedPerSubscriber() async throws {
        try await withSimulator(options) { simulator in
            simulator.setFaults(FaultPlan(extraLatency: .milliseconds(400)), forSubscriberID: 1)
            let clock = ContinuousClock()
            var start = clock.now
            let slowStatus = try await send(simulator.productionURL, body: body(id: 1)).appleStatus
            let slow = clock.now - start
            start = clock.now
            let fastStatus = try await send(simulator.productionURL, body: body(id: 2)).appleStatus
            let fast = clock.now - start
            #expect(slowStatus == 0 && fastStatus == 0)
            #expect(slow >= .milliseconds(400))
            _ = fast  // no upper bound: speed is the benchmark's business
        }
    }

    @Test func truncatedBodyEndsEarly() async throws {
        try await withSimulator(options) { simulator in
            simulator.setFaults(FaultPlan(steps: [.truncatedBody]), forSubscriberID: 1)
            let port = simulator.listeningPort
            let request = body(id: 1)
            let outcome = try await onDedicatedThread { () -> (RawHTTPConnection.Failure?, Int) in
                let connection = try RawHTTPConnection(port: port)
                connection.send(path: "/verifyReceipt", body: request)
                do {
                    _ = try connection.readResponse()
                    return (nil, 0)
                } catch let failure as RawHTTPConnection.Failure {
                    return (failure, 0)
                }
            }
            guard case .closed(let received, _)? = outcome.0 else {
                Issue.record("expected the connection to close mid-body, got \(String(describing: outcome.0))")
                return
            }
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            let declared = try #require(text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") })
            let length = try #require(Int(declared.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
            let bodyBytes = received.count - (text.range(of: "\r\n\r\n").map { text.utf8.distance(from: text.startIndex, to: $0.upperBound) } ?? 0)
            #expect(length > 5_000)
            #expect(bodyBytes > 0 && bodyBytes < length)
            // The next request (new connection) is answered normally.
            #expect(try await send(simulator.productionURL, body: request).appleStatus == 0)
        }
    }

    @Test func connectionResetSendsNothing() async throws {
        try await withSimulator(options) { simulator in
            simulator.setFaults(FaultPlan(steps: [.connectionReset]), forSubscriberID: 1)
            let port = simulator.listeningPort
            let request = body(id: 1)
            let failure = try await onDedicatedThread { () -> RawHTTPConnection.Failure? in
                let connection = try RawHTTPConnection(port: port, timeout: 5)
                connection.send(path: "/verifyReceipt", body: request)
                do {
                    _ = try connection.readResponse()
                    return nil
                } catch let failure as RawHTTPConnection.Failure {
                    return failure
                }
            }
            guard case .closed(let received, let reset)? = failure else {
                Issue.record("expected the connection to be dropped, got \(String(describing: failure))")
                return
            }
            #expect(received.isEmpty, "no response bytes before the drop")
            #expect(reset, "a TCP RST (ECONNRESET), not an orderly close")
            #expect(simulator.statistics().faultsInjected["connectionReset"] == 1)
            #expect(try await send(simulator.productionURL, body: request).appleStatus == 0)
        }
    }

    @Test func faultSequencesCanRepeat() {
        let injector = FaultInjector()
        injector.set(FaultPlan(steps: [.appleStatus(21005), .answer], repeats: true), forSubscriberID: 1)
        let steps = (0..<5).map { _ in injector.next(for: 1).step }
        #expect(steps == [.appleStatus(21005), .answer, .appleStatus(21005), .answer, .appleStatus(21005)])
        injector.setGlobal(.appleStatuses([21005]))
        #expect(injector.next(for: nil).step == .appleStatus(21005), "undecodable receipts share one cursor")
        #expect(injector.next(for: nil).step == .answer)
    }

    @Test func fractionSelectsAStableShareOfSubscribers() {
        let plan = FaultPlan(steps: [.appleStatus(21005)], fraction: 0.25)
        let selected = (Int64(0)..<4_000).filter { plan.selects(subscriberID: $0) }
        #expect((800...1_200).contains(selected.count))
        #expect(selected == (Int64(0)..<4_000).filter { plan.selects(subscriberID: $0) })
        #expect(FaultPlan(fraction: 0).selects(subscriberID: 1) == false)
        #expect(FaultPlan(fraction: 1).selects(subscriberID: 1))
    }
}
