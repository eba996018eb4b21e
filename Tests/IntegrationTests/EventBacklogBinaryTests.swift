import AppStoreSimulator
import AppleSignedData
import Foundation
import SubReconHTTP
import Testing

@testable import SubReconModel

/// The built binary end to end: after `subrecon run` against the simulator, `status` shows the
/// events section and the `--metrics-file` carries the four event metrics; the receiver's
/// `/metrics` reads them at each scrape. Both stores.
@Suite(.serialized) struct EventBacklogBinaryTests {
    static let secretText = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"

    @Test(arguments: StoreKind.allCases) func statusShowsTheEventsAndTheMetricsFileTheirFigures(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            // The binary runs on the wall clock: receipts imported as of now.
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await world.importScenarios([.active, .expired])
            let secret = world.folder + "/webhook.secret"
            _ = FileManager.default.createFile(
                atPath: secret, contents: Data(Self.secretText.utf8),
                attributes: [.posixPermissions: 0o600])
            var environment = world.storeEnvironment.merging([
                "SUBRECON_SHARED_SECRET": TestWorld.secret, "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
                "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
            ]) { $1 }
            let metrics = world.folder + "/subrecon.prom"

            let run = try await SubreconBinary.run(["run", "--metrics-file", metrics], environment: environment)
            #expect(run.exitCode == 0, "\(run.stderr)")
            let text = try String(contentsOfFile: metrics, encoding: .utf8)
            for name in [
                "subrecon_events_dead", "subrecon_events_unsent", "subrecon_webhook_attempts_total",
            ] {
                #expect(text.contains("# TYPE \(name) "), "\(name) in \(text)")
            }
            let samples = try PrometheusText.parse(text)
            #expect(samples.filter { $0.key.hasPrefix("subrecon_events_unsent{") }.values.reduce(0, +) == 2)
            #expect(samples["subrecon_webhook_attempts_total{result=\"delivered\"}"] == 0)

            // Nothing configured: recorded, not sent.
            let unsent = try await SubreconBinary.run(["status"], environment: environment)
            #expect(unsent.exitCode == 0, "\(unsent.stderr)")
            #expect(unsent.stdout.contains("\nEvents: 2 pending, 0 dead; webhook attempts so far: 0 delivered, 0 failed\n"), "\(unsent.stdout)")
            #expect(unsent.stdout.contains("no webhook configured: recorded, not sent\n"), "\(unsent.stdout)")

            // With an endpoint (never called here: neither run nor status POSTs), the same events
            // are pending for it, in status and in the metrics file of the next run.
            environment["SUBRECON_WEBHOOK_URL"] = "http://127.0.0.1:9/hooks"
            environment["SUBRECON_WEBHOOK_SECRET_FILE"] = secret
            let status = try await SubreconBinary.run(["status"], environment: environment)
            #expect(status.exitCode == 0, "\(status.stderr)")
            #expect(status.stdout.contains("\nEvents: 2 pending, 0 dead;"), "\(status.stdout)")
            #expect(
                status.stdout.split(separator: "\n").contains { $0.contains(" old ") && $0.hasSuffix("  configured") },
                "\(status.stdout)")
            let json = try await SubreconBinary.run(["status", "--json"], environment: environment)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let apps = try #require((report["events"] as? [String: Any])?["apps"] as? [[String: Any]])
            #expect(apps.map { $0["pending"] as? Int } == [2])
            #expect(apps.map { $0["webhook_configured"] as? Bool } == [true])

            let again = try await SubreconBinary.run(["run", "--metrics-file", metrics], environment: environment)
            #expect(again.exitCode == 0, "\(again.stderr)")
            let configured = try String(contentsOfFile: metrics, encoding: .utf8)
            for name in [
                "subrecon_events_pending", "subrecon_events_dead", "subrecon_webhook_attempts_total",
                "subrecon_event_oldest_pending_seconds",
            ] {
                #expect(configured.contains("# TYPE \(name) "), "\(name) in \(configured)")
            }
            let figures = try PrometheusText.parse(configured)
            #expect(figures.filter { $0.key.hasPrefix("subrecon_events_pending{") }.values.reduce(0, +) == 2)
            let age = figures.first { $0.key.hasPrefix("subrecon_event_oldest_pending_seconds{") }?.value ?? -1
            #expect(age >= 0 && age < 600, "\(age)")
        }
    }

    @Test(.timeLimit(.minutes(3)), arguments: StoreKind.allCases)
    func theReceiversMetricsReadTheEventsAtEachScrape(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await EventBacklogStatusAndMetricsTests.runAndSettle(world)
            let stored = try await EventBacklogStatusAndMetricsTests.eventApp(world)
            // An event naming no app is the deployment's one app's.
            let app = stored.isEmpty ? SimulatedProducts.bundleID : stored
            let secret = world.folder + "/webhook.secret"
            _ = FileManager.default.createFile(
                atPath: secret, contents: Data(Self.secretText.utf8), attributes: [.posixPermissions: 0o600])
            let (child, url) = try await NotificationsServeBinaryTests.startServing(
                in: world.folder,
                environment: world.storeEnvironment.merging([
                    "SUBRECON_WEBHOOK_URL": "http://127.0.0.1:9/hooks", "SUBRECON_WEBHOOK_SECRET_FILE": secret,
                    "SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID,
                ]) { $1 })
            var stopped = false
            defer { if !stopped { kill(child.processIdentifier, SIGKILL) } }
            let client = CurlTransport(maxConnections: 1)
            defer { client.shutdown() }
            let base = String(url.dropLast("/apple/notifications".count))

            let first = try await client.send(HTTPRequest(url: base + "/metrics", method: "GET"))
            // Settled meanwhile by a deliverer elsewhere: the next scrape sees it.
            try await world.execute("UPDATE events SET state = 'delivered' WHERE state = 'pending'")
            let second = try await client.send(HTTPRequest(url: base + "/metrics", method: "GET"))
            kill(child.processIdentifier, SIGTERM)
            #expect(await SubreconBinary.wait(child) == 0)
            stopped = true

            #expect(first.status == 200)
            let before = try Self.samples(first.body)
            #expect(before["subrecon_notifications_received_total"] == 0, "the receiver's own counters first")
            #expect(before["subrecon_events_pending{app=\"\(app)\"}"] == 2)
            #expect(before["subrecon_events_dead{app=\"\(app)\"}"] == 1)
            #expect(before["subrecon_webhook_attempts_total{result=\"delivered\"}"] == 1)
            #expect(before["subrecon_webhook_attempts_total{result=\"failed\"}"] == 2)
            let age = before["subrecon_event_oldest_pending_seconds{app=\"\(app)\"}"] ?? -1
            #expect(age >= 0 && age < 600, "\(age)")
            let after = try Self.samples(second.body)
            #expect(after["subrecon_events_pending{app=\"\(app)\"}"] == 0)
            #expect(after["subrecon_event_oldest_pending_seconds{app=\"\(app)\"}"] == 0)
        }
    }

    /// The counters and gauges of a `/metrics` body (the minimal parser takes no histograms).
    static func samples(_ body: [UInt8]) throws -> [String: Double] {
        let histograms = ["subrecon_notification_request_seconds", "subrecon_notification_lag_seconds"]
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").filter { line in
            !histograms.contains { line.contains($0) }
        }
        return try PrometheusText.parse(lines.joined(separator: "\n") + "\n")
    }
}
