import AppStoreSimulator
import Foundation
import SubReconHTTP
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `subrecon notifications serve` as an operator runs it: prints its URL, serves, and exits 0 on
/// SIGTERM; a signed notification is stored and applied, a forged one refused.
@Suite struct NotificationsServeBinaryTests {
    @Test(.timeLimit(.minutes(1)))
    func servesOnTheURLItPrintsAndExits0OnSIGTERM() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TestWorld.make().closing { world in
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let rootFile = folder + "/root.pem"
            try world.simulator.rootCertificatePEM.write(toFile: rootFile, atomically: true, encoding: .utf8)
            let (child, url) = try await Self.startServing(
                in: folder,
                environment: world.storeEnvironment.merging(
                    ["SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID, "SUBRECON_APPLE_ROOT_CA_FILE": rootFile]) { $1 })
            var stopped = false
            defer { if !stopped { kill(child.processIdentifier, SIGKILL) } }

            let client = CurlTransport(maxConnections: 2)
            defer { client.shutdown() }
            let renewal = world.simulator.makeNotification(.didRenew, for: subscriber)
            let notification = try await client.send(
                HTTPRequest(url: url, headers: [("Content-Type", "application/json")], body: renewal.bodyBytes))
            let forged = try await client.send(
                HTTPRequest(url: url, headers: [("Content-Type", "application/json")], body: Array(#"{"signedPayload":"x"}"#.utf8)))
            let base = String(url.dropLast("/apple/notifications".count))
            let health = try await client.send(HTTPRequest(url: base + "/healthz", method: "GET"))
            let metrics = try await client.send(HTTPRequest(url: base + "/metrics", method: "GET"))

            kill(child.processIdentifier, SIGTERM)
            let status = await SubreconBinary.wait(child)
            stopped = true

            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/apple/notifications"))
            #expect(notification.status == 200)
            #expect(forged.status == 400)
            #expect(health.status == 200)
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("subrecon_notifications_received_total 2\n"))
            #expect(status == 0, "SIGTERM is a clean stop")
            let stored = try await world.report(.notifications)
            #expect(stored.map { $0["notification_uuid"] } == [renewal.notificationUUID])
            #expect(stored.first?["user_id"] == "user-a")
            // The receiver's last notification shows in `status`.
            let statusReport = try await StatusReport.load(from: world.store, nowMs: world.clock.nowMs)
            #expect(statusReport.notifications.total == 1)
            #expect(statusReport.notifications.lastReceivedAt != nil)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aPortAlreadyTakenExits1WithAClearMessage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (first, url) = try await Self.startServing(in: folder)
        let port = String(url.split(separator: ":")[2].prefix { $0.isNumber })

        let second = try await SubreconBinary.run(
            ["notifications", "serve", "--port", port, "--db", folder + "/second.sqlite", "--bundle-id", "com.example.app"])
        kill(first.processIdentifier, SIGTERM)
        #expect(await SubreconBinary.wait(first) == 0, "the first one serves on, then stops cleanly")

        #expect(second.exitCode == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"))
        #expect(second.stdout.isEmpty, "no URL printed: it never listened")
    }

    @Test func aPathThatIsNotAbsoluteIsAUsageError() async throws {
        let result = try await SubreconBinary.run(["notifications", "serve", "--path", "apple"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--path"))
    }

    /// `notifications serve --port 0` (on a SQLite file in `folder` unless `environment` names a
    /// store), with `extraArguments`, once it prints its URL.
    static func startServing(
        in folder: String, environment: [String: String] = ["SUBRECON_BUNDLE_ID": "com.example.app"],
        extraArguments: [String] = []
    ) async throws -> (SubreconBinary.Running, String) {
        var arguments = ["notifications", "serve", "--port", "0"] + extraArguments
        if environment["SUBRECON_DB"] == nil { arguments += ["--db", folder + "/receiver.sqlite"] }
        let child = try SubreconBinary.start(arguments, environment: environment, folder: folder)
        do {
            return (child, try await printedURL(in: folder + "/child.out"))
        } catch {
            kill(child.processIdentifier, SIGKILL)
            throw error
        }
    }

    /// The first line the child prints, once it has (the server is listening by then).
    private static func printedURL(in path: String) async throws -> String {
        for _ in 0..<1_500 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first, text.contains("\n") { return String(line) }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no URL printed within 30 s")
        throw CancellationError()
    }
}
