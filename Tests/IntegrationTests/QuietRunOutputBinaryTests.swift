import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon

/// Issue 34, items 17 and 14: what a person reads says each thing once. The run's summary is on
/// stdout only (not again as a log line on stderr), 21004's explanation shows once, and the cron
/// jobs are quiet on success: `jobs/nightly.sh` leaves nothing in `nightly.err` on a night without
/// warnings; `jobs/export-reports.sh` prints nothing and exports every report kind.
@Suite struct QuietRunOutputBinaryTests {
    static let jobs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("jobs").path

    func environment(_ world: TestWorld, secret: String = TestWorld.secret) -> [String: String] {
        world.storeEnvironment.merging([
            "SUBRECON_SHARED_SECRET": secret, "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
        ]) { $1 }
    }

    static func occurrences(of text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }

    @Test(arguments: StoreKind.allCases) func theSummaryIsOnStdoutOnceAndNotLoggedAgain(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.importScenarios([.active, .expired])

            let run = try await SubreconBinary.run(["run"], environment: environment(world))

            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(Self.occurrences(of: "nightly run 1 completed: 2 receipts", in: run.stdout) == 1, "\(run.stdout)")
            #expect(run.stderr.isEmpty, "\(run.stderr)")
        }
    }

    @Test(arguments: StoreKind.allCases) func appleStoppingTheRunIsExplainedOnce(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.importScenarios([.active, .expired])

            let run = try await SubreconBinary.run(["run"], environment: environment(world, secret: "not-the-secret"))

            #expect(run.exitCode == 2, "\(run.stderr)")
            #expect(Self.occurrences(of: "Apple answered 21004: the shared secret does not match", in: run.stderr) == 1, "\(run.stderr)")
            #expect(Self.occurrences(of: "nightly run 1 aborted", in: run.stdout + run.stderr) == 1, "\(run.stdout)\n\(run.stderr)")
        }
    }

    @Test func aQuietNightLeavesTheJobsErrorFileEmpty() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.importScenarios([.active, .expired])
            let log = world.folder + "/log/nightly.log"
            var environment = environment(world)
            environment["SUBRECON_ENV_FILE"] = world.folder + "/none.env"
            environment["SUBRECON_BIN"] = SubreconBinary.path
            environment["SUBRECON_LOG_FILE"] = log

            let job = try await ShellScript.run(Self.jobs + "/nightly.sh", environment: environment)

            #expect(job.exitCode == 0, "\(job.stderr)")
            #expect(job.stdout.isEmpty && job.stderr.isEmpty, "cron mails any output: \(job.stdout)\(job.stderr)")
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("exit=0 nightly run 1 completed: 2 receipts"), "\(lines)")
            let errors = (try? String(contentsOfFile: world.folder + "/log/nightly.err", encoding: .utf8)) ?? ""
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    /// Every kind `report` writes without an argument, dated; the dashboard; apple-parity only
    /// where Apple's sales reports are fetched (SUBRECON_VENDOR_NUMBER). Nothing on stdout or stderr.
    @Test(arguments: StoreKind.allCases) func theExportJobIsQuietAndExportsEveryKind(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.importScenarios([.active, .expired, .refunded])
            #expect(try await world.run().exitCode == 0)
            let envFile = world.folder + "/subrecon.env"
            try world.storeEnvironment.map { "\($0.key)=\($0.value)\n" }.sorted().joined()
                .write(toFile: envFile, atomically: true, encoding: .utf8)
            let out = world.folder + "/reports"
            let environment = ["SUBRECON_ENV_FILE": envFile, "SUBRECON_BIN": SubreconBinary.path]

            let job = try await ShellScript.run(Self.jobs + "/export-reports.sh", [out], environment: environment)

            #expect(job.exitCode == 0, "\(job.stderr)")
            #expect(job.stdout.isEmpty && job.stderr.isEmpty, "cron mails any output: \(job.stdout)\(job.stderr)")
            let day = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: out))
            let kinds = ReportKind.allCases.filter { $0 != .dashboard && $0 != .appleParity }
            for kind in kinds {
                let file = "\(kind.rawValue)-\(day).csv"
                #expect(files.contains(file), "\(file): \(files.sorted())")
                let header = try String(contentsOfFile: out + "/" + file, encoding: .utf8).split(separator: "\n").first
                #expect(header.map { String($0).hasPrefix(kind.columns.joined(separator: ",")) } == true, "\(file)")
            }
            #expect(files.contains("dashboard-\(day).html"))
            #expect(files.count == kinds.count + 1, "no apple-parity without SUBRECON_VENDOR_NUMBER: \(files.sorted())")

            // Where Apple's reports are fetched, the ledger is matched against them too.
            let withApple = try await ShellScript.run(
                Self.jobs + "/export-reports.sh", [out], environment: environment.merging(["SUBRECON_VENDOR_NUMBER": "80012345"]) { $1 })
            #expect(FileManager.default.fileExists(atPath: out + "/apple-parity-\(day).csv"), "\(withApple.stderr)")
            #expect(withApple.stdout.isEmpty, "\(withApple.stdout)")
            #expect((withApple.exitCode == 0) == withApple.stderr.isEmpty, "\(withApple.exitCode): \(withApple.stderr)")
        }
    }
}
