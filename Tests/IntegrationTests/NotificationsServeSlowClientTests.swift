import AppStoreSimulator
import AppleSignedData
import Foundation
import NotificationReceiver
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconModel

/// `subrecon notifications serve` against slow clients, as an attacker would try it (issue 27):
/// the real binary on loopback with small limits, raw TCP connections that stall, trickle, idle or
/// crowd it.
@Suite struct NotificationsServeSlowClientTests {
    static let announced100KB =
        "POST /apple/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 102400\r\n\r\n"

    /// A stalled body, a trickled body, trickled headers and a silent connection are all cut at
    /// the read timeout (2 s here; the idle timeout is 30 s, so it is not what cuts them); a
    /// request that arrives at once is answered and its connection then stays open while idle.
    @Test(.timeLimit(.minutes(1)))
    func requestsNotInFullWithinTheReadTimeoutAreClosed() async throws {
        let receiver = try await Receiver.start(["--read-timeout", "2", "--idle-timeout", "30"])
        defer { receiver.stop() }

        async let stalled = Self.closedAfter(port: receiver.port) { connection, start in
            connection.send(Self.announced100KB + "{")
            return ContinuousClock.now - start
        }
        async let silent = Self.closedAfter(port: receiver.port) { _, _ in .zero }
        async let trickledBody = Self.closedAfter(port: receiver.port) { connection, start in
            connection.send(Self.announced100KB)
            return try await Self.trickle(on: connection, "{\"signedPayload\":\"" + String(repeating: "a", count: 200), since: start)
        }
        async let trickledHead = Self.closedAfter(port: receiver.port) { connection, start in
            try await Self.trickle(
                on: connection, "POST /apple/notifications HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 200),
                since: start)
        }
        let results = try await [
            ("stalled body", stalled), ("silent", silent), ("trickled body", trickledBody), ("trickled head", trickledHead),
        ]
        for (name, (closedAfter, lastSent)) in results {
            let seconds = try #require(closedAfter, "\(name): still open 10 s later").seconds
            #expect(seconds >= 1.6, "\(name): closed after \(seconds) s, before the 2 s read timeout")
            #expect(seconds <= 7, "\(name): closed only after \(seconds) s")
            if name.hasPrefix("trickled") {
                // At least two bytes went out 200 ms apart (a trickle, not a stall) before the cut; the
                // byte times themselves stretch on a loaded host, so no tighter bound is asked.
                #expect(lastSent.seconds >= 0.15, "\(name): last byte sent \(lastSent.seconds) s in: not a trickle")
            }
        }

        // A request sent at once is answered, and its keep-alive connection is not cut by the read
        // timeout while it idles.
        let prompt = try RawTCPConnection(port: receiver.port)
        prompt.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try await prompt.response(timeout: .seconds(5))?.status == 200)
        #expect(try await prompt.waitUntilClosed(timeout: .milliseconds(2_000)) == nil, "idle, not reading a request")
        prompt.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try await prompt.response(timeout: .seconds(5))?.status == 200)
        let metrics = try await receiver.get("/metrics")
        #expect(metrics.contains("subrecon_notification_read_timeouts_total 4\n"), "\(metrics)")
    }

    /// A keep-alive connection left idle is closed after the idle timeout (6 s), not before (the 1 s
    /// read timeout does not apply between requests); one in use stays open past it. The gaps are a
    /// tenth of the idle timeout, so a loaded host stretching them does not close the busy one.
    @Test(.timeLimit(.minutes(1)))
    func anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        let receiver = try await Receiver.start(["--read-timeout", "1", "--idle-timeout", "6"])
        defer { receiver.stop() }

        let busy = try RawTCPConnection(port: receiver.port)
        // On a thread of its own, so a loaded host's task pool cannot stretch the gaps.
        let (answered, lasted) = await RawTCPConnection.onOwnThread { () -> (Int, Duration) in
            var answered = 0
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(8) {
                guard busy.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
                    busy.responseBlocking(timeout: .seconds(5))?.status == 200
                else { break }
                answered += 1
                Thread.sleep(forTimeInterval: 0.3)
            }
            return (answered, ContinuousClock.now - started)
        }
        #expect(lasted >= .seconds(8), "a connection used every 0.3 s was closed after \(answered) answers")
        // Every request was answered until 8 s had passed (a loaded host answers fewer than one per 0.3 s).
        #expect(answered >= 3, "the busy connection was reused: \(answered) answers")

        let idle = try RawTCPConnection(port: receiver.port)
        idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try await idle.response(timeout: .seconds(5))?.status == 200)
        let closedAfter = try #require(try await idle.waitUntilClosed(timeout: .seconds(16)), "idle connection never closed")
        // Timed from when this test saw the answer, which a loaded host can delay by a second or
        // so: the bound tells the idle timeout (6 s) from the read timeout (1 s), with that room.
        #expect(closedAfter.seconds >= 4.5, "closed after \(closedAfter.seconds) s, before the 6 s idle timeout")
        #expect(closedAfter.seconds <= 14, "closed only after \(closedAfter.seconds) s")
    }

    /// With a cap of 20, while 20 connections are open the 21st and later are not served (they wait
    /// in the listen backlog), /healthz still answers on an open connection, and once the slow ones
    /// are cut the waiting ones are served and a signed notification is stored.
    @Test(.timeLimit(.minutes(3)))
    func beyondTheConnectionCapNewConnectionsWaitUntilLoadDrops() async throws {
        try await TestWorld.make().closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let receiver = try await Receiver.start(
                // A long idle timeout: the served first connection must stay open through the whole test.
                // A read timeout long enough that a loaded host's slow steps (a fresh-clone run of the
                // whole suite took over 8 s between them) do not cut the slow ones before the cap is checked.
                ["--read-timeout", "20", "--idle-timeout", "90", "--max-connections", "20"], world: world)
            defer { receiver.stop() }

            // One served connection, then 19 slow ones: the cap is reached.
            let first = try RawTCPConnection(port: receiver.port)
            first.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await first.response(timeout: .seconds(5))?.status == 200)
            var slow: [RawTCPConnection] = []
            for _ in 0..<19 {
                let connection = try RawTCPConnection(port: receiver.port)
                connection.send(Self.announced100KB + "{")
                slow.append(connection)
            }
            try await Task.sleep(for: .milliseconds(300))
            // Five more, each with a whole request: not served while the cap holds.
            var extra: [RawTCPConnection] = []
            for _ in 0..<5 {
                let connection = try RawTCPConnection(port: receiver.port)
                connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                extra.append(connection)
            }
            var servedBeyondTheCap = 0
            for connection in extra {
                if try await connection.response(timeout: .milliseconds(200)) != nil { servedBeyondTheCap += 1 }
            }
            #expect(servedBeyondTheCap == 0, "connections beyond the cap must wait, not be served")
            // An open connection still gets answers, and the receiver counts exactly 20 open.
            first.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await first.response(timeout: .seconds(5))?.status == 200, "/healthz on an open connection at the cap")
            let atTheCap = try await receiver.metrics(over: first)
            #expect(atTheCap.contains("subrecon_notification_connections_open 20\n"), "\(atTheCap)")
            #expect(atTheCap.contains("subrecon_notification_connections_max 20\n"))
            #expect(!extra.contains { $0.closedByPeer }, "waiting, not refused")

            // The slow ones are cut at the read timeout; then the waiting ones are accepted and served.
            var servedLater = 0
            for connection in extra {
                if try await connection.response(timeout: .seconds(30))?.status == 200 { servedLater += 1 }
            }
            #expect(servedLater == 5, "the connections that waited are served once the slow ones are cut")
            var cut = 0
            for connection in slow {
                if try await connection.waitUntilClosed(timeout: .seconds(5)) != nil { cut += 1 }
            }
            #expect(cut == 19, "the slow ones were cut")

            // An Apple-like POST is stored.
            let client = CurlTransport(maxConnections: 1)
            defer { client.shutdown() }
            let renewal = world.simulator.makeNotification(.didRenew, for: subscriber)
            let answer = try await client.send(
                HTTPRequest(url: receiver.url, headers: [("Content-Type", "application/json")], body: renewal.bodyBytes))
            #expect(answer.status == 200)
            let metrics = try await receiver.get("/metrics")
            #expect(metrics.contains("subrecon_notification_read_timeouts_total 19\n"), "\(metrics)")
            #expect(!metrics.contains("subrecon_notification_connection_limit_reached_total 0\n"))
            let stored = try await world.report(.notifications)
            #expect(stored.map { $0["notification_uuid"] } == [renewal.notificationUUID])
        }
    }

    /// Bad limits are usage errors that name the setting, before any database is opened.
    @Test func badLimitsAreConfigurationErrors() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-limits-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let base = ["notifications", "serve", "--port", "0", "--db", folder + "/receiver.sqlite", "--bundle-id", "com.example.app"]

        let zero = try await SubreconBinary.run(base + ["--read-timeout", "0"])
        #expect(zero.exitCode == 2)
        #expect(zero.stderr.contains("SUBRECON_NOTIFICATIONS_READ_TIMEOUT / --read-timeout must be a whole number of seconds from 1 to 300, not \"0\""), "\(zero.stderr)")
        let word = try await SubreconBinary.run(base, environment: ["SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT": "soon"])
        #expect(word.exitCode == 2)
        #expect(word.stderr.contains("SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT must be a whole number of seconds"), "\(word.stderr)")
        let many = try await SubreconBinary.run(base + ["--max-connections", "1000000"])
        #expect(many.exitCode == 2)
        #expect(many.stderr.contains("ulimit -n"), "\(many.stderr)")
        #expect(zero.stdout.isEmpty && word.stdout.isEmpty && many.stdout.isEmpty, "never listened")
        #expect(!FileManager.default.fileExists(atPath: folder + "/receiver.sqlite"), "refused before the database is opened")
    }

    // MARK: - Helpers

    /// Connects, runs `act` (which returns when, after connecting, it last sent a byte), then waits
    /// for the server to close: the time from connecting to the close (nil if still open 10 s
    /// later) and when the last byte went out.
    private static func closedAfter(
        port: Int, _ act: @escaping @Sendable (RawTCPConnection, ContinuousClock.Instant) async throws -> Duration
    ) async throws -> (Duration?, Duration) {
        let start = ContinuousClock.now
        let connection = try RawTCPConnection(port: port)
        let lastSent = try await act(connection, start)
        return (try await connection.waitUntilClosed(timeout: .seconds(10), since: start), lastSent)
    }

    /// Sends `text` one byte every 200 ms until the server closes the connection (or all is
    /// sent); returns when, after `start`, the last byte went out. On a thread of its own: on a
    /// loaded host the tests' shared task pool can wake a sleeping task seconds late, which would
    /// turn the trickle into a stall.
    private static func trickle(
        on connection: RawTCPConnection, _ text: String, since start: ContinuousClock.Instant
    ) async throws -> Duration {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var lastSent = Duration.zero
                for byte in text {
                    connection.drain()
                    if connection.closedByPeer || !connection.send(String(byte)) { break }
                    lastSent = ContinuousClock.now - start
                    Thread.sleep(forTimeInterval: 0.2)
                }
                continuation.resume(returning: lastSent)
            }
        }
    }

    /// `notifications serve` with the given limits, on a SQLite file of its own or on `world`'s store.
    struct Receiver: Sendable {
        let child: SubreconBinary.Running
        let url: String
        let folder: String
        var port: Int { RawTCPConnection.port(of: url) }

        static func start(_ limits: [String], world: TestWorld? = nil) async throws -> Receiver {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-slow-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var environment = ["SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID]
            if let world {
                let rootFile = folder + "/root.pem"
                try world.simulator.rootCertificatePEM.write(toFile: rootFile, atomically: true, encoding: .utf8)
                environment.merge(world.storeEnvironment) { $1 }
                environment["SUBRECON_APPLE_ROOT_CA_FILE"] = rootFile
            }
            let (child, url) = try await NotificationsServeBinaryTests.startServing(
                in: folder, environment: environment, extraArguments: limits)
            return Receiver(child: child, url: url, folder: folder)
        }

        /// A GET on a connection of its own; the body.
        func get(_ path: String) async throws -> String {
            let client = CurlTransport(maxConnections: 1)
            defer { client.shutdown() }
            let base = String(url.dropLast(NotificationReceiverConfiguration.defaultPath.count))
            let response = try await client.send(HTTPRequest(url: base + path, method: "GET", timeout: .seconds(10)))
            return String(decoding: response.body, as: UTF8.self)
        }

        /// `/metrics` read over an open connection (a new one would wait at the cap).
        func metrics(over connection: RawTCPConnection) async throws -> String {
            connection.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try await connection.response(timeout: .seconds(5))?.body ?? ""
        }

        func stop() {
            kill(child.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
