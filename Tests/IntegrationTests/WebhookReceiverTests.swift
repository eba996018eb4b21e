import Foundation
import SubReconHTTP
import SubReconTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The loopback receiver the webhook tests deliver to, exercised with the project's own HTTP client
/// (`CurlTransport`, what the deliverer POSTs with): each behaviour reaches the client as the real
/// failure it imitates, and what the client sent is recorded byte for byte.
@Suite(.serialized) struct WebhookReceiverTests {
    typealias Receiver = WebhookReceiver

    /// Headers shaped like a Standard Webhooks delivery, with a name in odd case to show names are kept.
    private static func post(_ url: String, id: String, body: String, timeout: Duration = .seconds(60)) -> HTTPRequest {
        HTTPRequest(
            url: url,
            headers: [
                ("Content-Type", "application/json"), ("webhook-id", id), ("webhook-timestamp", "1796094000"),
                ("webhook-signature", "v1,c2lnbmF0dXJl v1,b3RoZXI="), ("X-Odd-CASE", "  kept  value"),
            ],
            body: Array(body.utf8), timeout: timeout)
    }

    /// The error `send` threw, or nil when an HTTP answer came.
    private static func failure(_ transport: CurlTransport, _ request: HTTPRequest) async -> HTTPTransportError? {
        do {
            _ = try await transport.send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func statusesArriveAndTheRequestIsRecordedAsSent() async throws {
        let statuses = ["a": 200, "b": 204, "c": 500, "d": 410, "e": 429]
        try await Receiver.with(behaviour: { .status(statuses[$0.header("webhook-id") ?? ""] ?? 418) }) { receiver in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            for id in statuses.keys.sorted() {
                let response = try await transport.send(Self.post(receiver.url, id: id, body: #"{"id":"\#(id)","seq":1}"#))
                #expect(response.status == statuses[id])
                #expect(response.body.isEmpty == (statuses[id] == 204))
            }
            let requests = receiver.requests
            #expect(requests.map(\.index) == Array(0..<5))
            #expect(requests.compactMap { $0.header("WEBHOOK-ID") } == statuses.keys.sorted())
            let first = try #require(requests.first)
            #expect(first.method == "POST")
            #expect(first.target == "/hooks?x=1")
            #expect(first.path == "/hooks")
            #expect(first.version == "HTTP/1.1")
            #expect(first.bodyText == #"{"id":"a","seq":1}"#)
            #expect(first.header("content-length") == String(first.body.count))
            // Names as written, in the order sent, values without the blanks around them.
            let ours = first.headers.filter { ["content-type", "webhook-id", "webhook-timestamp", "webhook-signature", "x-odd-case"].contains($0.name.lowercased()) }
            #expect(ours.map(\.name) == ["Content-Type", "webhook-id", "webhook-timestamp", "webhook-signature", "X-Odd-CASE"])
            #expect(ours.map(\.value) == ["application/json", "a", "1796094000", "v1,c2lnbmF0dXJl v1,b3RoZXI=", "kept  value"])
            #expect(first.values(of: "webhook-signature") == ["v1,c2lnbmF0dXJl v1,b3RoZXI="])
            #expect(receiver.requests(webhookID: "c").count == 1)
            #expect(first.receivedAt <= Date())
        }
    }

    @Test func aBehaviourCanFailAnEventsFirstAttemptsAndBeChangedLater() async throws {
        let attempts = Mutex([String: Int]())
        try await Receiver.with(behaviour: { request in
            let id = request.header("webhook-id") ?? ""
            let attempt = attempts.withLock { $0[id, default: 0] += 1; return $0[id]! }
            return attempt < 3 ? .status(503) : .status(200)
        }) { receiver in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await transport.send(Self.post(receiver.url, id: "evt", body: "{}")).status) }
            #expect(statuses == [503, 503, 200])
            receiver.setBehaviour { _ in .status(410) }
            #expect(try await transport.send(Self.post(receiver.url, id: "evt", body: "{}")).status == 410)
            #expect(receiver.requests(webhookID: "evt").count == 4)
        }
    }

    @Test func aSlowAnswerWithinTheTimeoutArrivesAndOneBeyondItTimesOut() async throws {
        try await Receiver.with(behaviour: { $0.header("webhook-id") == "late" ? .slow(seconds: 30, status: 200) : .slow(seconds: 0.2, status: 201) }) { receiver in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            let start = ContinuousClock.now
            let soon = try await transport.send(Self.post(receiver.url, id: "soon", body: "{}"))
            #expect(soon.status == 201)
            #expect(ContinuousClock.now - start >= .milliseconds(200))
            let error = await Self.failure(transport, Self.post(receiver.url, id: "late", body: "{}", timeout: .milliseconds(500)))
            #expect(error == .timedOut(url: receiver.url))
            #expect(receiver.requests.count == 2)
        }
    }

    @Test func neverAnsweringTimesOutAndStopEndsTheHeldConnection() async throws {
        let receiver = Receiver { _ in .neverAnswer }
        try await receiver.start()
        let transport = CurlTransport(maxConnections: 2)
        defer { transport.shutdown() }
        let error = await Self.failure(transport, Self.post(receiver.url, id: "held", body: "{}", timeout: .milliseconds(400)))
        #expect(error == .timedOut(url: receiver.url))
        // The client gave up and closed: the receiver lets go of that connection by itself.
        #expect(await receiver.waitUntilNoOpenConnections())

        // A client that waits longer is released by stop(), promptly, with a failure (no answer).
        let url = receiver.url
        async let held = Self.failure(transport, Self.post(url, id: "held-2", body: "{}", timeout: .seconds(60)))
        try await receiver.waitForRequests(count: 2)
        let start = ContinuousClock.now
        await receiver.stop()
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(receiver.openConnections == 0)
        let heldError = await held
        #expect(heldError != nil && heldError != .timedOut(url: url))
    }

    @Test(arguments: [Receiver.Behaviour.closeMidBody, .garbage, .closeImmediately, .reset])
    func aBrokenAnswerIsATransportErrorNotACrash(_ behaviour: Receiver.Behaviour) async throws {
        try await Receiver.with(behaviour: { _ in behaviour }) { receiver in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let error = await Self.failure(transport, Self.post(receiver.url, id: "broken", body: #"{"n":1}"#))
            switch error {
            case .connectionFailed?, .transportFailed?: break
            default: Issue.record("\(behaviour): \(String(describing: error))")
            }
            // Recorded once: a fresh connection that fails is not retried by libcurl.
            #expect(receiver.requests.map(\.bodyText) == [#"{"n":1}"#])
            // The same client goes on working afterwards.
            receiver.setBehaviour { _ in .status(200) }
            let after = try await transport.send(Self.post(receiver.url, id: "after", body: "{}"))
            #expect(after.status == 200)
        }
    }

    /// Worth knowing when counting a deliverer's attempts: libcurl resends a request once, on a new
    /// connection, when a *reused* connection closes without a byte of answer (the server may have
    /// closed an idle connection just as the request went out). So one failed `send` may arrive twice.
    @Test func aReusedConnectionClosedWithoutAnAnswerIsTriedOnceMoreByLibcurl() async throws {
        try await Receiver.with(behaviour: { $0.index == 0 ? .status(200) : .closeImmediately }) { receiver in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            _ = try await transport.send(Self.post(receiver.url, id: "first", body: "{}"))
            let error = await Self.failure(transport, Self.post(receiver.url, id: "second", body: "{}"))
            #expect(error != nil)
            #expect(receiver.requests(webhookID: "second").map(\.connection) == [1, 2])
        }
    }

    @Test func aRedirectIsReturnedAsItsStatusAndNotFollowed() async throws {
        try await Receiver.with(behaviour: { $0.path == "/elsewhere" ? .status(200) : .redirect(to: "/elsewhere") }) { receiver in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let response = try await transport.send(Self.post(receiver.url, id: "moved", body: "{}"))
            #expect(response.status == 302)
            #expect(response.headers["location"] == "/elsewhere")
            try await Task.sleep(for: .milliseconds(100))
            #expect(receiver.requests.map(\.target) == ["/hooks?x=1"])
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await Receiver.with(behaviour: { $0.index % 2 == 0 ? .status(200) : .status(500) }) { receiver in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            for n in 0..<6 {
                _ = try await transport.send(Self.post(receiver.url, id: "k\(n)", body: #"{"n":\#(n)}"#))
            }
            #expect(receiver.requests.count == 6)
            #expect(Set(receiver.requests.map(\.connection)) == [1])
            #expect(receiver.connectionsAccepted == 1)
        }
    }

    @Test func aHundredConcurrentPostsAreAllRecordedIntact() async throws {
        // Every answer waits until all 100 requests are in (the closure runs on its connection's own
        // thread, so it may block): the receiver holds 100 connections and requests at once.
        let arrived = Mutex(0)
        try await Receiver.with(behaviour: { _ in
            arrived.withLock { $0 += 1 }
            let deadline = ContinuousClock.now + .seconds(30)
            while arrived.withLock({ $0 }) < 100, ContinuousClock.now < deadline { usleep(2_000) }
            return .status(204)
        }) { receiver in
            let transport = CurlTransport(maxConnections: 100)
            defer { transport.shutdown() }
            let url = receiver.url
            let bodies = (0..<100).map { n in #"{"id":"\#(n)","pad":"\#(String(repeating: "x", count: n * 97))"}"# }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (n, body) in bodies.enumerated() {
                    group.addTask { try await transport.send(Self.post(url, id: "c\(n)", body: body)).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 204, count: 100))
            let requests = receiver.requests
            #expect(requests.count == 100)
            #expect(Set(requests.map(\.index)) == Set(0..<100))
            for request in requests {
                let n = Int(request.header("webhook-id")!.dropFirst())!
                #expect(request.bodyText == bodies[n])
            }
            #expect(receiver.peakOpenConnections == 100)
            #expect(receiver.peakRequestsInFlight == 100)
            #expect(receiver.requestsInFlight == 0)
        }
    }

    @Test func aClientsConcurrencyBoundShowsAsThePeakInFlight() async throws {
        try await Receiver.with(behaviour: { _ in .slow(seconds: 0.05, status: 200) }) { receiver in
            let transport = CurlTransport(maxConnections: 4)
            defer { transport.shutdown() }
            let url = receiver.url
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<40 { group.addTask { _ = try await transport.send(Self.post(url, id: "b\(n)", body: "{}")) } }
                try await group.waitForAll()
            }
            #expect(receiver.requests.count == 40)
            #expect(receiver.peakRequestsInFlight <= 4)
            #expect(receiver.peakRequestsInFlight >= 2)
            // Connections are kept and reused: no more than the bound were opened.
            #expect(receiver.connectionsAccepted <= 4)
        }
    }

    /// A benchmark's receiver: thousands of requests counted, none kept (memory stays flat), at a
    /// rate far above the deliverer's goal of 2,000 events/s (printed; not asserted on a busy host).
    @Test func withoutKeepingRequestsOnlyTheCountGrows() async throws {
        try await Receiver.with(keepsRequests: false) { receiver in
            let transport = CurlTransport(maxConnections: 16)
            defer { transport.shutdown() }
            let url = receiver.url
            let body = String(repeating: "e", count: 2_000)
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        for n in 0..<250 { _ = try await transport.send(Self.post(url, id: "w\(worker)-\(n)", body: body)) }
                    }
                }
                try await group.waitForAll()
            }
            let seconds = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - start).components.seconds)
            print("WebhookReceiver: 4,000 POSTs over 16 connections at \(Int(4_000 / seconds))/s")
            #expect(receiver.requestCount == 4_000)
            #expect(receiver.requests.isEmpty)
            #expect(try await receiver.waitForRequests(count: 4_000).isEmpty)
            #expect(receiver.connectionsAccepted <= 16)
        }
    }

    @Test func rawHTTPChunkedContinueAndPipelinedRequestsAreParsed() async throws {
        try await Receiver.with(target: "/in", behaviour: { _ in .status(200) }) { receiver in
            let port = receiver.port
            let answer = try await Self.exchange(
                port: port,
                [
                    "POST /a?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
                    "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n",
                    "POST /c HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n",
                    "ok",
                ])
            #expect(answer.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
            #expect(answer.contains("HTTP/1.1 100 Continue"))
            #expect(answer.contains("Connection: close"))
            let requests = receiver.requests
            #expect(requests.map(\.target) == ["/a?q=1", "/b", "/c"])
            #expect(requests.map(\.bodyText) == ["hello", "abcde", "ok"])
            #expect(Set(requests.map(\.connection)) == [1])
            #expect(receiver.url == "http://127.0.0.1:\(port)/in")
        }
    }

    @Test func afterStopNothingListensAndNoConnectionIsLeft() async throws {
        let receiver = Receiver()
        try await receiver.start()
        let transport = CurlTransport(maxConnections: 4)
        defer { transport.shutdown() }
        #expect(try await transport.send(Self.post(receiver.url, id: "x", body: "{}")).status == 200)
        await receiver.stop()
        await receiver.stop()  // idempotent
        #expect(receiver.openConnections == 0)
        let error = await Self.failure(transport, Self.post(receiver.url, id: "y", body: "{}", timeout: .seconds(5)))
        #expect(error != nil)
        #expect(receiver.requests.count == 1)
        await #expect(throws: Receiver.Failure.self) { try await receiver.waitForRequests(count: 2, timeout: .milliseconds(50)) }
    }

    /// Sends `parts` on one connection (a short pause between them) and reads until the server closes.
    private static func exchange(port: UInt16, _ parts: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    defer { close(fd) }
                    var tv = timeval(tv_sec: 10, tv_usec: 0)
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = port.bigEndian
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    let connected = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                    guard connected == 0 else { throw Receiver.Failure.socket(call: "connect", code: errno) }
                    for part in parts {
                        let bytes = Array(part.utf8)
                        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        usleep(50_000)
                    }
                    var received: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if n <= 0 { break }
                        received += chunk[..<n]
                    }
                    return String(decoding: received, as: UTF8.self)
                })
            }
        }
    }
}
