import Foundation
import NotificationReceiver
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The notification receiver over real loopback HTTP (libcurl, keep-alive) with a scripted intake
/// in place of verification and the store: what each intake result is answered, the size limit,
/// routing, metrics, and a graceful shutdown with a request in flight.
@Suite struct NotificationReceiverTests {
    static let applied = NotificationIntakeResult.stored(
        uuid: "uuid-applied", outcome: .applied, duplicate: false, signedDateMs: 1_795_329_961_000)
    static let body = Array(#"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln"}"#.utf8)

    @Test func eachIntakeResultIsAnsweredWithTheStatusAppleActsOn() async throws {
        let intake = ScriptedNotificationIntake(
            [
                Self.applied,
                .stored(uuid: "uuid-applied", outcome: .applied, duplicate: true, signedDateMs: 1_795_329_961_000),
                .refused(.signature, message: "the x5c chain does not lead to the pinned root"),
                .unavailable(message: "database at db.internal:5432 refused the connection"),
            ], fallback: .refused(.malformed, message: "unused"))
        let receiver = try await RunningReceiver.start(intake: intake)

        let stored = try await receiver.post(Self.body)
        let duplicate = try await receiver.post(Self.body)
        let refused = try await receiver.post(Self.body)
        let unavailable = try await receiver.post(Self.body)
        try await receiver.stop()

        #expect(stored.status == 200)
        #expect(duplicate.status == 200, "a duplicate is answered 200 too, or Apple would resend it")
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).hasPrefix("signature: "))
        #expect(unavailable.status == 503)
        #expect(!String(decoding: unavailable.body, as: UTF8.self).contains("db.internal"), "the cause stays in the log")
        #expect(await intake.bodies == Array(repeating: Self.body, count: 4), "every body reaches the intake unchanged")
    }

    @Test func aBodyOverOneMiBIs413AndNeverReachesTheIntakeWhileExactlyOneMiBDoes() async throws {
        let intake = ScriptedNotificationIntake(fallback: Self.applied)
        let receiver = try await RunningReceiver.start(intake: intake, connections: 1)
        let limit = NotificationReceiverConfiguration.defaultMaxBodyBytes
        let exact = (0..<limit).map { UInt8(truncatingIfNeeded: $0 % 251) }

        let tooLarge = try await receiver.post(exact + [42])
        let atLimit = try await receiver.post(exact)
        // It serves on after a 413 (the rest of that body was read and dropped, never buffered).
        let after = try await receiver.post(Self.body)
        let metrics = String(decoding: try await receiver.get("/metrics").body, as: UTF8.self)
        try await receiver.stop()

        #expect(tooLarge.status == 413)
        #expect(atLimit.status == 200)
        #expect(after.status == 200)
        #expect(await intake.bodies == [exact, Self.body])
        #expect(metrics.contains(#"subrecon_notifications_rejected_total{reason="too_large"} 1"#))
    }

    @Test func aChunkedBodyWithNoDeclaredLengthIsCutOffAtOneMiBToo() async throws {
        let log = CapturedLog()
        let intake = ScriptedNotificationIntake(fallback: Self.applied)
        let receiver = try await RunningReceiver.start(intake: intake, logger: log.logger(label: "receiver"), connections: 1)
        let limit = NotificationReceiverConfiguration.defaultMaxBodyBytes
        let exact = [UInt8](repeating: UInt8(ascii: "x"), count: limit)
        let chunked = [(name: "Content-Type", value: "application/json"), (name: "Transfer-Encoding", value: "chunked")]

        let tooLarge = try await receiver.client.send(HTTPRequest(url: receiver.url, headers: chunked, body: exact + [42]))
        let atLimit = try await receiver.client.send(HTTPRequest(url: receiver.url, headers: chunked, body: exact))
        try await receiver.stop()

        #expect(tooLarge.status == 413)
        #expect(atLimit.status == 200)
        #expect(await intake.bodies == [exact])
        #expect(log.all.contains { $0.contains("over the limit") && $0.contains("more than \(limit)") }, "no length was declared")
    }

    @Test func otherPathsAre404AndOtherMethods405() async throws {
        let intake = ScriptedNotificationIntake(fallback: Self.applied)
        let receiver = try await RunningReceiver.start(intake: intake)

        let otherPath = try await receiver.post(Self.body, to: receiver.base + "/apple/notification")
        let root = try await receiver.get("/")
        let getOnPath = try await receiver.get(NotificationReceiverConfiguration.defaultPath)
        let putOnPath = try await receiver.client.send(
            HTTPRequest(url: receiver.url, method: "PUT", body: Self.body, timeout: .seconds(30)))
        let postToMetrics = try await receiver.post(Self.body, to: receiver.base + "/metrics")
        let health = try await receiver.get("/healthz")
        try await receiver.stop()

        #expect(otherPath.status == 404)
        #expect(root.status == 404)
        #expect(getOnPath.status == 405)
        #expect(getOnPath.headers["allow"] == "POST")
        #expect(putOnPath.status == 405)
        #expect(postToMetrics.status == 405)
        #expect(postToMetrics.headers["allow"] == "GET")
        #expect(health.status == 200)
        #expect(await intake.bodies.isEmpty, "only a POST on the path reaches the intake")
    }

    @Test func requestsInARowShareOneKeptAliveConnection() async throws {
        let intake = ScriptedNotificationIntake(fallback: Self.applied)
        let receiver = try await RunningReceiver.start(intake: intake, connections: 1)

        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await receiver.post(Self.body).status) }
        let metrics = String(decoding: try await receiver.get("/metrics").body, as: UTF8.self)
        try await receiver.stop()

        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(metrics.contains("subrecon_notification_connections_opened_total 1\n"), "six requests, one connection")
    }

    @Test func metricsCountEveryOutcomeReasonLatencyAndLag() async throws {
        let nowMs: Int64 = 1_795_329_964_000
        let intake = ScriptedNotificationIntake(
            [
                .stored(uuid: "a", outcome: .applied, duplicate: false, signedDateMs: nowMs - 3_000),
                .stored(uuid: "a", outcome: .applied, duplicate: true, signedDateMs: nowMs - 3_000),
                .stored(uuid: "t", outcome: .test, duplicate: false, signedDateMs: nowMs - 40_000),
                .refused(.bundle, message: "another app's bundle id"),
                .refused(.bundle, message: "another app's bundle id"),
                .unavailable(message: "store down"),
            ], fallback: .refused(.malformed, message: "not JSON"))
        let receiver = try await RunningReceiver.start(intake: intake, wallClockMs: { nowMs })

        for _ in 0..<7 { _ = try await receiver.post(Self.body) }
        _ = try await receiver.post(Array(repeating: 32, count: (1 << 20) + 1))
        _ = try await receiver.get("/nowhere")
        let response = try await receiver.get("/metrics")
        try await receiver.stop()
        let text = String(decoding: response.body, as: UTF8.self)
        let lines = Set(text.split(separator: "\n").map(String.init))

        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let expected = [
            "# TYPE subrecon_notifications_received_total counter",
            "subrecon_notifications_received_total 8",
            #"subrecon_notifications_stored_total{outcome="applied"} 1"#,
            #"subrecon_notifications_stored_total{outcome="test"} 1"#,
            #"subrecon_notifications_stored_total{outcome="stale"} 0"#,
            "subrecon_notifications_duplicates_total 1",
            #"subrecon_notifications_rejected_total{reason="bundle"} 2"#,
            #"subrecon_notifications_rejected_total{reason="malformed"} 1"#,
            #"subrecon_notifications_rejected_total{reason="signature"} 0"#,
            #"subrecon_notifications_rejected_total{reason="too_large"} 1"#,
            #"subrecon_notifications_rejected_total{reason="unavailable"} 1"#,
            "# TYPE subrecon_notification_request_seconds histogram",
            #"subrecon_notification_request_seconds_bucket{le="+Inf"} 8"#,
            "subrecon_notification_request_seconds_count 8",
            "# TYPE subrecon_notification_lag_seconds histogram",
            #"subrecon_notification_lag_seconds_bucket{le="2"} 0"#,
            #"subrecon_notification_lag_seconds_bucket{le="5"} 1"#,
            #"subrecon_notification_lag_seconds_bucket{le="30"} 1"#,
            #"subrecon_notification_lag_seconds_bucket{le="60"} 2"#,
            "subrecon_notification_lag_seconds_count 2",
            "subrecon_notification_lag_seconds_sum 43",
            "subrecon_notifications_last_received_timestamp_seconds 1795329964",
        ]
        for line in expected {
            #expect(lines.contains(line), "missing: \(line)")
        }
    }

    @Test func noBodyContentIsEverLogged() async throws {
        let log = CapturedLog()
        let intake = ScriptedNotificationIntake(
            [.refused(.malformed, message: "no signedPayload"), Self.applied], fallback: .unavailable(message: "down"))
        let receiver = try await RunningReceiver.start(intake: intake, logger: log.logger(label: "receiver"))
        let marker = "customer-data-7f3e9a"
        let body = Array(#"{"signedPayload":"\#(marker)"}"#.utf8)

        for _ in 0..<3 { _ = try await receiver.post(body) }
        try await receiver.stop()

        let lines = log.all
        #expect(lines.contains { $0.contains("notification refused") && $0.contains("\(body.count)") }, "sizes are logged")
        #expect(lines.contains { $0.contains("uuid-applied") }, "uuids are logged")
        #expect(!lines.contains { $0.contains(marker) })
    }

    @Test(.timeLimit(.minutes(1)))
    func aGracefulShutdownAnswersTheRequestInFlightRefusesNewConnectionsAndReturns() async throws {
        let intake = ScriptedNotificationIntake(fallback: Self.applied, holding: true)
        let receiver = try await RunningReceiver.start(intake: intake)

        let inFlight = Task { try await receiver.post(Self.body) }
        await intake.waitUntilHolding(1)
        await receiver.server.shutDown()

        // The listener closes while the request is still held: a new connection is refused.
        let prober = CurlTransport(maxConnections: 1)
        defer { prober.shutdown() }
        var refused = false
        for _ in 0..<500 where !refused {
            do throws(HTTPTransportError) {
                _ = try await prober.send(HTTPRequest(url: receiver.base + "/healthz", method: "GET", timeout: .seconds(2)))
            } catch .connectionFailed {
                refused = true
            }
            if !refused { try await Task.sleep(for: .milliseconds(20)) }
        }
        await intake.release()
        let answer = try await inFlight.value
        try await receiver.finished()
        receiver.client.shutdown()

        #expect(refused, "no new connection once the shutdown began")
        #expect(answer.status == 200, "the request in flight was answered")
        #expect(await intake.bodies.count == 1)
    }
}
