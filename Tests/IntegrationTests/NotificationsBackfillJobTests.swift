import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `jobs/backfill-notifications.sh`, as cron runs it: the binary's `notifications backfill` over
/// the last two days of the simulator's notification history, configured from an environment file.
@Suite struct NotificationsBackfillJobTests {
    static let jobs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("jobs").path

    @Test func theDailyJobRecoversWhatTheReceiverMissedAndARerunOnlyCountsDeliveries() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let setup = try ServerAPIBinaryTests().setUp(world)
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world)
            let now = world.clock.nowMs
            // Three days ago (outside the job's two days) and three within them.
            let old = world.simulator.makeNotification(.didRenew, for: subscriber, atMs: now - 3 * NotificationProcessingTests.day)
            let missed = [30, 20, 10].map { hours in
                world.simulator.makeNotification(
                    .didChangeRenewalStatus, subtype: .autoRenewEnabled, for: subscriber, atMs: now - Int64(hours) * 3_600_000)
            }
            let envFile = world.folder + "/subrecon.env"
            try setup.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "\n")
                .write(toFile: envFile, atomically: true, encoding: .utf8)
            let environment = [
                "SUBRECON_ENV_FILE": envFile, "SUBRECON_BIN": SubreconBinary.path,
                "BACKFILL_LOG_FILE": world.folder + "/backfill.log",
            ]
            for attempt in 1...2 {
                let job = try await ShellScript.run(Self.jobs + "/backfill-notifications.sh", environment: environment)
                #expect(job.exitCode == 0, "\(job.stderr)")
                let log = try String(contentsOfFile: world.folder + "/backfill.log", encoding: .utf8)
                let line = log.split(separator: "\n").last.map(String.init) ?? ""
                #expect(line.contains("production exit=0"), "\(log)")
                #expect(line.contains("3 notification(s) in Apple's history"), "\(line)")
                #expect(line.contains(attempt == 1 ? "stored 3 notification(s)" : "3 already stored"), "\(line)")
            }
            let rows = try await world.report(.notifications)
            #expect(Set(rows.compactMap { $0["notification_uuid"] }) == Set(missed.map(\.notificationUUID)))
            #expect(!rows.contains { $0["notification_uuid"] == old.notificationUUID })
            #expect(rows.allSatisfy { $0["deliveries"] == "2" && $0["outcome"] == "applied" })
        }
    }
}

/// Runs one of the project's shell scripts with exactly `environment` (plus PATH), off the
/// cooperative pool, like `SubreconBinary.run`.
enum ShellScript {
    static func run(_ script: String, _ arguments: [String] = [], environment: [String: String]) async throws
        -> SubreconBinary.Result
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-script-\(UUID().uuidString)").path
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    defer { try? FileManager.default.removeItem(atPath: folder) }
                    let child = try SubreconBinary.spawn(
                        [script] + arguments, executable: "/bin/bash", environment: environment, stdin: "/dev/null",
                        stdout: folder + "/stdout", stderr: folder + "/stderr")
                    let status = SubreconBinary.waitBlocking(child)
                    return SubreconBinary.Result(
                        exitCode: status,
                        stdout: (try? String(contentsOfFile: folder + "/stdout", encoding: .utf8)) ?? "",
                        stderr: (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "")
                })
            }
        }
    }
}
