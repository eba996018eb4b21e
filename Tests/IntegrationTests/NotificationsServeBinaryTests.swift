import Foundation
import SubReconHTTP
import Testing

/// `subrecon notifications serve` as an operator runs it: prints its URL, serves, and exits 0 on
/// SIGTERM. (Until notification processing lands, its intake answers every notification 503.)
@Suite struct NotificationsServeBinaryTests {
    @Test(.timeLimit(.minutes(1)))
    func servesOnTheURLItPrintsAndExits0OnSIGTERM() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (child, url) = try await Self.startServing(in: folder)
        var stopped = false
        defer { if !stopped { kill(child.processIdentifier, SIGKILL) } }

        let client = CurlTransport(maxConnections: 2)
        defer { client.shutdown() }
        let notification = try await client.send(
            HTTPRequest(url: url, headers: [("Content-Type", "application/json")], body: Array(#"{"signedPayload":"x"}"#.utf8)))
        let base = String(url.dropLast("/apple/notifications".count))
        let health = try await client.send(HTTPRequest(url: base + "/healthz", method: "GET"))
        let metrics = try await client.send(HTTPRequest(url: base + "/metrics", method: "GET"))

        kill(child.processIdentifier, SIGTERM)
        let status = await SubreconBinary.wait(child)
        stopped = true

        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/apple/notifications"))
        #expect([200, 503].contains(notification.status), "stored, or 503 while processing is not built")
        #expect(health.status == 200)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("subrecon_notifications_received_total 1\n"))
        #expect(status == 0, "SIGTERM is a clean stop")
    }

    @Test(.timeLimit(.minutes(1)))
    func aPortAlreadyTakenExits1WithAClearMessage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (first, url) = try await Self.startServing(in: folder)
        let port = String(url.split(separator: ":")[2].prefix { $0.isNumber })

        let second = try await SubreconBinary.run(
            ["notifications", "serve", "--port", port, "--db", folder + "/second.sqlite"])
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

    /// `notifications serve --port 0` on a SQLite file in `folder`, once it prints its URL.
    private static func startServing(in folder: String) async throws -> (SubreconBinary.Running, String) {
        let child = try SubreconBinary.start(
            ["notifications", "serve", "--port", "0", "--db", folder + "/receiver.sqlite"], environment: [:], folder: folder)
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
