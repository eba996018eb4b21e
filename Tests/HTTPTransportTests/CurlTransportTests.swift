import Foundation
import SubReconHTTP
import SubReconTestSupport
import Synchronization
import Testing

private typealias Request = SubReconHTTP.HTTPRequest
private typealias Response = SubReconHTTP.HTTPResponse

/// Echoes the body and reports what the server saw of the request in `x-seen-*` headers.
@Sendable private func echo(_ request: LoopbackRequest) async throws -> LoopbackResponse {
    LoopbackResponse(
        headers: [
            ("X-Seen-Method", request.method),
            ("X-Seen-Content-Type", request.header("Content-Type") ?? "none"),
            ("X-Seen-Expect", request.header("Expect") ?? "none"),
            ("X-Seen-Password", request.header("X-Password") ?? "none"),
        ],
        body: request.body
    )
}

private func json(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A generous timeout: these tests are about what goes over the wire, not speed, and a full suite on two
/// busy cores once kept the largest echo past a much shorter one.
private func post(_ url: String, _ body: [UInt8], timeout: Duration = .seconds(120)) -> Request {
    Request(url: url, headers: [("Content-Type", "application/json")], body: body, timeout: timeout)
}

/// The error `send` threw, or nil if it returned a response.
private func failure(of transport: CurlTransport, _ request: Request) async -> HTTPTransportError? {
    do {
        _ = try await transport.send(request)
        return nil
    } catch {
        return error
    }
}

@Suite("CurlTransport over loopback")
struct CurlTransportTests {

    @Test("POST echoes status, body and headers exactly")
    func postRoundTrip() async throws {
        try await withLoopbackServer(echo) { base in
            let transport = CurlTransport(maxConnections: 2)
            defer { transport.shutdown() }
            let body = json(#"{"receipt-data":"MIIT…base64==","password":"s3cret","exclude-old-transactions":true}"#)
            var request = post(base + "/verifyReceipt", body)
            request.headers.append(("X-Password", "p@ss: word"))

            let response = try await transport.send(request)

            #expect(response.status == 200)
            #expect(response.body == body)
            #expect(response.headers["content-length"] == String(body.count))
            #expect(response.headers["x-seen-method"] == "POST")
            #expect(response.headers["x-seen-content-type"] == "application/json")
            #expect(response.headers["x-seen-password"] == "p@ss: word")
            // The empty Expect: header suppresses 100-continue entirely.
            #expect(response.headers["x-seen-expect"] == "none")
            #expect(response.headers.keys.allSatisfy { $0 == $0.lowercased() })
        }
    }

    @Test("a body over 1 MiB (libcurl's 100-continue threshold) goes without Expect: 100-continue")
    func largeBodyWithoutExpect() async throws {
        try await withLoopbackServer(echo) { base in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let body = [UInt8](repeating: UInt8(ascii: "7"), count: 1_100_000)
            let response = try await transport.send(post(base, body))
            #expect(response.headers["x-seen-expect"] == "none")
            #expect(response.body == body)
        }
    }

    @Test("without a caller Content-Type, none is sent (not libcurl's form-urlencoded default)")
    func noDefaultContentType() async throws {
        try await withLoopbackServer(echo) { base in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let response = try await transport.send(Request(url: base, body: json("{}")))
            #expect(response.headers["x-seen-content-type"] == "none")
            #expect(response.body == json("{}"))
        }
    }

    @Test("200 concurrent requests over at most 8 connections, then kept-alive reuse")
    func manyConcurrentRequests() async throws {
        let ports = Mutex<Set<Int>>([])
        let handler: LoopbackHandler = { request in
            if let port = request.remotePort {
                ports.withLock { _ = $0.insert(port) }
            }
            return try await echo(request)
        }
        try await withLoopbackServer(handler) { base in
            let transport = CurlTransport(maxConnections: 8)
            defer { transport.shutdown() }

            let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let body = json(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: index))"}"#)
                        let response = try await transport.send(post(base + "/r/\(index)", body))
                        return response.status != 200 || response.body != body
                    }
                }
                var mismatches = 0
                for try await mismatch in group where mismatch { mismatches += 1 }
                return mismatches
            }
            #expect(mismatches == 0)
            let afterBurst = ports.withLock { $0 }
            #expect(afterBurst.count >= 1 && afterBurst.count <= 8)

            // Sequential requests now ride the pooled connections: no new client port appears.
            for index in 0..<20 {
                let response = try await transport.send(post(base, json("[\(index)]")))
                #expect(response.body == json("[\(index)]"))
            }
            #expect(ports.withLock { $0 } == afterBurst)
        }
    }

    @Test("a non-200 status is a response, with Retry-After readable")
    func serviceUnavailableIsAResponse() async throws {
        let handler: LoopbackHandler = { _ in
            LoopbackResponse(status: 503, headers: [("Retry-After", "7")], body: Array("busy".utf8))
        }
        try await withLoopbackServer(handler) { base in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let response = try await transport.send(post(base, json("{}")))
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "7")
            #expect(response.body == Array("busy".utf8))
        }
    }

    @Test("a handler slower than the request timeout gives .timedOut")
    func timeout() async throws {
        let handler: LoopbackHandler = { _ in
            try await Task.sleep(for: .seconds(20))
            return LoopbackResponse()
        }
        try await withLoopbackServer(handler) { base in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let url = base + "/slow"
            let error = await failure(of: transport, post(url, json("{}"), timeout: .milliseconds(300)))
            #expect(error == .timedOut(url: url))
        }
    }

    @Test("a body over maxResponseBytes is refused: announced by Content-Length or streamed chunked")
    func responseTooLarge() async throws {
        let limit = 64 * 1024
        let handler: LoopbackHandler = { request in
            let size = Int(request.path.split(separator: "/").last ?? "") ?? 0
            return LoopbackResponse(
                body: [UInt8](repeating: UInt8(ascii: "b"), count: size), chunked: request.path.hasPrefix("/chunked/"))
        }
        try await withLoopbackServer(handler) { base in
            let transport = CurlTransport(maxConnections: 2, maxResponseBytes: limit)
            defer { transport.shutdown() }

            for kind in ["sized", "chunked"] {
                let fits = try await transport.send(Request(url: "\(base)/\(kind)/\(limit)", method: "GET"))
                #expect(fits.status == 200)
                #expect(fits.body.count == limit)
                // The chunked kind really comes without a length: only byte counting can catch it.
                #expect((fits.headers["content-length"] == nil) == (kind == "chunked"))

                let url = "\(base)/\(kind)/\(limit + 1)"
                let error = await failure(of: transport, Request(url: url, method: "GET"))
                #expect(error == .responseTooLarge(url: url, limit: limit))
            }
            // Still usable afterwards.
            #expect(try await transport.send(Request(url: "\(base)/sized/3", method: "GET")).body == Array("bbb".utf8))
        }
    }

    @Test("a port with no listener gives .connectionFailed with curl's reason")
    func connectionRefused() async throws {
        let closed = try RefusingPort()
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let url = "http://127.0.0.1:\(closed.port)/verifyReceipt"
        let error = await failure(of: transport, post(url, json("{}")))
        guard case .connectionFailed(let failedURL, let reason)? = error else {
            Issue.record("expected .connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(failedURL == url)
        #expect(!reason.isEmpty)
    }

    @Test("https:// to a plain-HTTP port fails as .tlsFailed")
    func httpsToPlainHTTP() async throws {
        try await withLoopbackServer(echo) { base in
            let transport = CurlTransport(maxConnections: 1)
            defer { transport.shutdown() }
            let url = base.replacingOccurrences(of: "http://", with: "https://")
            let error = await failure(of: transport, post(url, json("{}")))
            guard case .tlsFailed(let failedURL, _)? = error else {
                Issue.record("expected .tlsFailed, got \(String(describing: error))")
                return
            }
            #expect(failedURL == url)
        }
    }

    // scripts/setup.sh installs openssl, so this always runs; without it, it fails loudly.
    @Test("a self-signed server is refused, and accepted when caFile trusts its certificate")
    func selfSignedCertificate() async throws {
        let server = try SelfSignedTLSServer(answers: .statusPage)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"

        let strict = CurlTransport(maxConnections: 1)
        defer { strict.shutdown() }
        let error = await failure(of: strict, Request(url: url, method: "GET"))
        guard case .tlsFailed(let failedURL, let reason)? = error else {
            Issue.record("expected .tlsFailed, got \(String(describing: error))")
            return
        }
        #expect(failedURL == url)
        #expect(!reason.isEmpty)

        let trusting = CurlTransport(maxConnections: 1, caFile: server.certificatePath)
        defer { trusting.shutdown() }
        let response = try await trusting.send(Request(url: url, method: "GET"))
        #expect(response.status == 200)
        #expect(!response.body.isEmpty)
    }

    @Test("URLs that are not http(s) or that curl cannot parse give .invalidURL")
    func invalidURLs() async {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        for url in ["file:///etc/passwd", "ftp://127.0.0.1/", "buy.itunes.apple.com/verifyReceipt", "http://"] {
            #expect(await failure(of: transport, post(url, json("{}"))) == .invalidURL(url))
        }
    }

    @Test("a header value with a line break is refused before anything is sent")
    func headerInjectionRefused() async {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let url = "http://127.0.0.1:9/"
        let request = Request(url: url, headers: [("X-Evil", "a\r\nHost: elsewhere")], body: json("{}"))
        guard case .transportFailed(let failedURL, _)? = await failure(of: transport, request) else {
            Issue.record("expected .transportFailed")
            return
        }
        #expect(failedURL == url)
    }

    @Test("shutdown fails in-flight and queued requests with .shutDown, and later sends too")
    func shutdownWithOutstandingRequests() async throws {
        let arrived = Mutex(0)
        let handler: LoopbackHandler = { _ in
            arrived.withLock { $0 += 1 }
            try await Task.sleep(for: .seconds(30))
            return LoopbackResponse()
        }
        try await withLoopbackServer(handler) { base in
            let transport = CurlTransport(maxConnections: 3)
            // 3 in flight on the server plus 2 queued behind maxConnections.
            async let outcomes = withTaskGroup(of: HTTPTransportError?.self) { group in
                for _ in 0..<5 {
                    group.addTask { await failure(of: transport, post(base, json("{}"), timeout: .seconds(30))) }
                }
                var outcomes: [HTTPTransportError?] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            // Wait (bounded) until the server holds the in-flight ones.
            for _ in 0..<500 where arrived.withLock({ $0 }) < 3 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(arrived.withLock { $0 } == 3)

            transport.shutdown()
            transport.shutdown()  // idempotent

            let results = await outcomes
            #expect(results.count == 5)
            #expect(results.allSatisfy { $0 == .shutDown })
            #expect(await failure(of: transport, post(base, json("{}"))) == .shutDown)
        }
    }

    @Test("a transport dropped without shutdown cleans up in deinit")
    func deinitWithoutShutdown() async throws {
        try await withLoopbackServer(echo) { base in
            var transport: CurlTransport? = CurlTransport(maxConnections: 2)
            let response = try await transport!.send(post(base, json("[1]")))
            #expect(response.body == json("[1]"))
            weak let released = transport
            transport = nil  // deinit joins the loop thread and frees the handles
            #expect(released == nil)
        }
    }
}
