import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// What operators and monitoring see: progress and logs off a terminal, JSON logs, the metrics
/// file, `user --json` and the lookup by original_transaction_id.
@Suite struct ObservabilityTests {
    func environment(_ world: TestWorld) -> [String: String] {
        [
            "SUBRECON_DB": world.databasePath, "SUBRECON_SHARED_SECRET": TestWorld.secret,
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL, "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
        ]
    }

    func importWallClock(_ world: TestWorld, _ scenarios: [SimulatedScenario]) async throws {
        world.clock.set(nowMs: WallClock.unixMilliseconds())
        try await world.importScenarios(scenarios)
    }

    @Test func offATerminalProgressIsPlainLogLinesWithoutControlCharacters() async throws {
        try await TestWorld.make().closing { world in
            try await importWallClock(world, [.active, .expired, .refunded, .gracePeriod])
            var env = environment(world)
            env["SUBRECON_PROGRESS_INTERVAL"] = "0"

            let result = try await SubreconBinary.run(["run"], environment: env)

            #expect(result.exitCode == 0, "\(result.stderr)")
            let progress = result.stderr.split(separator: "\n").filter { $0.contains("progress:") }
            #expect(progress.count == 4)
            #expect(progress.last?.contains("4/4 receipts (100%)") == true)
            #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" })
            // One summary line at the end, on stdout only (issue 34: it was logged on stderr as well).
            #expect(result.stdout.contains("nightly run 1 completed"))
            #expect(!result.stderr.contains("nightly run 1 completed"), "\(result.stderr)")
        }
    }

    @Test func jsonLogsAreOneObjectPerLine() async throws {
        try await TestWorld.make().closing { world in
            try await importWallClock(world, [.active])

            let result = try await SubreconBinary.run(["run", "--log-format", "json", "--log-level", "debug"], environment: environment(world))

            #expect(result.exitCode == 0)
            let lines = result.stderr.split(separator: "\n")
            #expect(!lines.isEmpty)
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["level"] != nil && object?["message"] != nil, "\(line)")
            }
            #expect(lines.contains { $0.contains("\"apple.status\":\"0\"") })
        }
    }

    @Test func theMetricsFileIsPrometheusTextWithTheRunsFigures() async throws {
        try await TestWorld.make().closing { world in
            try await importWallClock(world, [.active, .expired, .invalidReceipt])
            let path = world.folder + "/subrecon.prom"

            let result = try await SubreconBinary.run(["run", "--metrics-file", path], environment: environment(world))

            #expect(result.exitCode == 0)
            let samples = try PrometheusText.parse(String(contentsOfFile: path, encoding: .utf8))
            #expect(samples["subrecon_last_run_exit_code{kind=\"nightly\"}"] == 0)
            #expect(samples["subrecon_last_run_receipts{kind=\"nightly\",outcome=\"updated\"}"] == 2)
            #expect(samples["subrecon_last_run_receipts{kind=\"nightly\",outcome=\"invalid\"}"] == 1)
            #expect(samples["subrecon_last_run_apple_status{kind=\"nightly\",status=\"21003\"}"] == 1)
            #expect(samples["subrecon_subscriptions{status=\"active\"}"] == 1)
            #expect(samples["subrecon_subscriptions{status=\"expired\"}"] == 1)
            #expect((samples["subrecon_last_success_timestamp_seconds{kind=\"nightly\"}"] ?? 0) > 1_700_000_000)
            // Issue 34: node_exporter reads it as another user; it holds counts only, no customer data.
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(mode == 0o644, "mode \(String(mode, radix: 8))")
        }
    }

    @Test func userJSONAndLookupByOriginalTransactionID() async throws {
        try await TestWorld.make().closing { world in
            try await importWallClock(world, [.active])
            _ = try await SubreconBinary.run(["run"], environment: environment(world))
            let otid = try #require(try await world.subscriptions().first?.originalTransactionID)

            let result = try await SubreconBinary.run(
                ["user", "--original-transaction-id", otid, "--json"], environment: environment(world))

            #expect(result.exitCode == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(object["user_id"] as? String == "user-active")
            let after = try #require(object["after"] as? [[String: Any]])
            #expect(after.first?["status"] as? String == "active")
            #expect(after.first?["entitled"] as? Bool == true)
            let receipts = try #require(object["receipts"] as? [[String: Any]])
            #expect(receipts.first?["apple_status"] as? Int == 0)

            let unknown = try await SubreconBinary.run(["user", "--original-transaction-id", "42"], environment: environment(world))
            #expect(unknown.exitCode == 2)
            let both = try await SubreconBinary.run(["user", "x", "--original-transaction-id", "42"], environment: environment(world))
            #expect(both.exitCode != 0)
            #expect(both.stderr.contains("exactly one"))
        }
    }
}

extension ObservabilityTests {
    @Test func aFailedReportLeavesNoPartialFileAndKeepsTheOldOne() async throws {
        try await TestWorld.make().closing { world in
            let env = environment(world)
            let missing = world.folder + "/items.csv"
            let existing = world.folder + "/kept.csv"
            try "yesterday's report\n".write(toFile: existing, atomically: true, encoding: .utf8)

            let first = try await SubreconBinary.run(["report", "run-items", "--run", "999", "--output", missing], environment: env)
            let second = try await SubreconBinary.run(["report", "run-items", "--run", "999", "--output", existing], environment: env)

            #expect(first.exitCode == 2)
            #expect(second.exitCode == 2)
            #expect(!FileManager.default.fileExists(atPath: missing))
            #expect(try String(contentsOfFile: existing, encoding: .utf8) == "yesterday's report\n")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: world.folder).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty)
        }
    }
}

/// A minimal parser of Prometheus text exposition: checks every line's shape and that each
/// sample's metric was declared with # TYPE; returns `name{labels}` → value.
enum PrometheusText {
    struct Malformed: Error { var line: String }

    static func parse(_ text: String) throws -> [String: Double] {
        var declared: Set<String> = []
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["gauge", "counter"].contains(parts[3]) else { throw Malformed(line: String(line)) }
                declared.insert(String(parts[2]))
                continue
            }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw Malformed(line: String(line))
            }
            let series = String(line[..<space])
            let name = String(series.prefix { $0 != "{" })
            guard declared.contains(name), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw Malformed(line: String(line))
            }
            samples[series] = value
        }
        return samples
    }
}
