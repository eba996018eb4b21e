import Foundation
import Testing

/// `subrecon simulator --notification-url`: it says where it serves before it tries to deliver,
/// and each delivery attempt gets its own line on stderr.
@Suite struct SimulatorNotificationURLBinaryTests {
    /// Starts the simulator and waits (up to 40 s, room for a loaded host) until `done` holds for its
    /// stdout and stderr. Before issue 34 it printed nothing for minutes, so the lines' presence is
    /// the check; no time is asserted.
    func watch(_ url: String, folder: String, until done: (String, String) -> Bool) async throws -> (out: String, err: String) {
        let child = try SubreconBinary.start(["simulator", "--port", "0", "--notification-url", url], environment: [:], folder: folder)
        defer {
            kill(child.processIdentifier, SIGTERM)
            _ = SubreconBinary.waitBlocking(child)
        }
        var out = "", err = ""
        for _ in 0..<400 {
            out = (try? String(contentsOfFile: folder + "/child.out", encoding: .utf8)) ?? ""
            err = (try? String(contentsOfFile: folder + "/child.err", encoding: .utf8)) ?? ""
            if done(out, err) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return (out, err)
    }

    /// Issue 34 (item 15): with nobody listening it used to print nothing for minutes.
    @Test func withNoReceiverItSaysWhereItServesAndThatItWaitsAtOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let (out, err) = try await watch("http://127.0.0.1:9/hook", folder: folder) { out, err in
            out.contains("Sample account") && err.contains("waiting up to a minute")
        }

        #expect(out.hasPrefix("App Store simulator on 127.0.0.1:"), "\(out)")
        #expect(err.contains("nothing answers at http://127.0.0.1:9/hook yet"), "\(err)")
        #expect(err.contains("notification(s)"))
    }

    @Test func eachDeliveryAttemptAndItsFailureIsOneLineOnStderr() async throws {
        try await TestWorld.make().closing { world in
            // Another simulator stands in for a receiver that answers, but not with 200.
            let url = world.simulator.serverAPIProductionBaseURL + "/no-receiver-here"

            let (out, err) = try await watch(url, folder: world.folder) { out, _ in out.contains("delivered ") }

            let delivered = try #require(out.split(separator: "\n").first { $0.hasPrefix("delivered ") }, "\(out)\n\(err)")
            let count = try #require(Int(delivered.split(separator: " ")[1]))
            #expect(count > 0)
            #expect(out.hasPrefix("App Store simulator on 127.0.0.1:"))
            let attempts = err.split(separator: "\n").filter { $0.contains("subrecon: notification ") }
            #expect(attempts.count == count, "\(err)")
            #expect(attempts.allSatisfy { $0.contains(" to \(url) failed: UNSUCCESSFUL_HTTP_RESPONSE_CODE (HTTP 4") }, "\(err)")
        }
    }
}
