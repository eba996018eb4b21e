import AppStoreSimulator
import AppleSignedData
import Foundation
import GRDB
import SubReconTestSupport
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Faults and security over real parts: a real SQLite file, the simulator over loopback (with
/// injected faults), the built binary, and `openssl s_server` for TLS.
@Suite struct FaultAndSecurityTests {
    /// Distinctive values: any of them found in an output or a file is a leak.
    static let secret = TestWorld.secret  // the simulator's secret: the right one
    static let wrongSecret = "WRONG-shared-secret-5c1d8e2f9a7b40d3"
    static let fileSecret = "FILE-shared-secret-3e6a0b4d2c8f71e9"

    /// The binary's environment. Retries stay on (they are part of what is tested) but fast: two
    /// attempts, 5 ms base backoff, so a run against a broken answer takes milliseconds, not seconds.
    func environment(_ world: TestWorld, secret: String? = FaultAndSecurityTests.secret) -> [String: String] {
        var env = [
            "SUBRECON_DB": world.databasePath,
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
            "SUBRECON_MAX_ATTEMPTS": "2",
            "SUBRECON_RETRY_BASE_DELAY_MS": "5",
            "SUBRECON_REQUEST_TIMEOUT": "10",
        ]
        if let secret { env["SUBRECON_SHARED_SECRET"] = secret }
        return env
    }

    /// An import CSV, one user per scenario (`u1`, `u2`, …); returns its path and the receipt data.
    func writeImport(_ world: TestWorld, _ scenarios: [SimulatedScenario]) throws -> (path: String, receipts: [String]) {
        var lines = ["user_id,receipt_data,product_id"]
        var receipts: [String] = []
        for (index, scenario) in scenarios.enumerated() {
            let receipt = world.receipt(scenario, id: Int64(index + 1))
            receipts.append(receipt)
            lines.append("u\(index + 1),\(receipt),\(scenario.expectedProductID ?? "")")
        }
        let path = world.folder + "/receipts.csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, receipts)
    }

    /// Every row of a table, as SQLite holds it.
    func dump(_ world: TestWorld, _ sql: String) async throws -> [Row] {
        try await world.database.writer.read { db in try Row.fetchAll(db, sql: sql) }
    }

    // MARK: - rejected bodies change nothing

    static let rejectedAnswers: [FaultStep] = [
        .nonJSONBody, .truncatedBody, .httpError(503), .connectionReset,
        .appleStatus(21005, isRetryable: true), .appleStatus(21009, isRetryable: true), .appleStatus(21104, isRetryable: true),
    ]

    @Test("a rejected answer changes no subscription, fails every item and exits 1", arguments: rejectedAnswers)
    func rejectedAnswersChangeNothing(_ fault: FaultStep) async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active, .refunded])
            let first = try await world.run(.all)
            #expect(first.exitCode == 0)
            let before = try await world.subscriptions()
            #expect(Set(before.map(\.status)) == [.active, .refunded], "the first run stores both subscriptions")
            let subscriptionsBefore = try await dump(world, "SELECT * FROM subscriptions ORDER BY user_id, original_transaction_id")
            let renewalsBefore = try await dump(world, "SELECT * FROM renewals ORDER BY user_id, period_key")
            let receiptsBefore = try await dump(world, "SELECT id, user_id, receipt_data, environment FROM receipts ORDER BY id")

            // A later night (an applied answer would at least move last_verified_at), every answer broken.
            world.clock.advance(byMs: DuePolicy.day)
            world.simulator.resetStatistics()
            world.simulator.setGlobalFaults(FaultPlan(steps: [fault], repeats: true))
            let second = try await world.run(.all)

            #expect(world.simulator.statistics().faultsInjected[fault.name, default: 0] >= 2, "the fault was injected")
            #expect(second.exitCode == 1, "\(fault.name)")
            #expect(second.count(.failed) == 2, "\(second.line)")
            #expect(try await world.subscriptions() == before)
            #expect(try await dump(world, "SELECT * FROM subscriptions ORDER BY user_id, original_transaction_id") == subscriptionsBefore)
            #expect(try await dump(world, "SELECT * FROM renewals ORDER BY user_id, period_key") == renewalsBefore)
            #expect(try await dump(world, "SELECT id, user_id, receipt_data, environment FROM receipts ORDER BY id") == receiptsBefore)
            let items = try await world.report(.runItems, runID: second.runID)
            #expect(items.count == 2)
            #expect(items.allSatisfy { $0["outcome"] == "failed" }, "\(items.map { $0["outcome"] ?? "" })")
            #expect(items.allSatisfy { !($0["message"] ?? "").isEmpty }, "a failed item says why")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE verification_state = 'failed'") == 2)
        }
    }

    // MARK: - the secret never leaks

    @Test func theSharedSecretAppearsInNoOutputNoDatabaseAndNoReport() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let (file, _) = try writeImport(world, [.active, .refunded, .gracePeriod, .invalidReceipt])
            let env = environment(world)
            let trace = ["--log-level", "trace"]
            var outputs: [(String, SubreconBinary.Result)] = []
            func run(_ name: String, _ arguments: [String], _ env: [String: String]) async throws -> SubreconBinary.Result {
                let result = try await SubreconBinary.run(arguments, environment: env)
                outputs.append((name, result))
                return result
            }

            #expect(try await run("import", ["import", file] + trace, env).exitCode == 0)
            let nightly = try await run("run", ["run"] + trace, env)
            #expect(nightly.exitCode == 0, "\(nightly.stderr)")
            #expect(nightly.stderr.contains("trace") || nightly.stderr.contains("debug"), "trace logging is on: the leak check is not vacuous")
            #expect(try await run("user", ["user", "u1"] + trace, env).exitCode == 0)
            #expect(try await run("dry run", ["run", "--all", "--dry-run"] + trace, env).exitCode == 0)
            // Failure paths write messages too: a non-JSON body, an HTTP error, a retryable status.
            for fault in [FaultStep.nonJSONBody, .httpError(500), .appleStatus(21002)] {
                world.simulator.setGlobalFaults(FaultPlan(steps: [fault], repeats: true))
                let failed = try await run("run with \(fault.name)", ["run", "--all", "--limit", "1"] + trace, env)
                #expect(failed.exitCode == 1, "\(fault.name): \(failed.stdout)")
            }
            world.simulator.clearFaults()
            let outputFiles = ReportKind.allCases.map { world.folder + "/report-\($0.rawValue).csv" }
            for (kind, output) in zip(ReportKind.allCases, outputFiles) {
                // The dashboard is a page: --output only (without it, exit 2 and nothing written).
                // apple-parity with no Apple report stored compares no day: exit 1 (issue 34, item 8).
                let written = kind == .appleParity ? Int32(1) : 0
                #expect(try await run("report \(kind.rawValue)", ["report", kind.rawValue] + trace, env).exitCode == (kind == .dashboard ? 2 : written))
                #expect(try await run("report \(kind.rawValue) file", ["report", kind.rawValue, "--output", output] + trace, env).exitCode == written)
            }

            // A wrong secret: Apple's 21004 stops the run (exit 2) without echoing what was sent.
            let wrong = try await run("wrong secret", ["run", "--all"] + trace, environment(world, secret: Self.wrongSecret))
            #expect(wrong.exitCode == 2)
            #expect(wrong.stderr.contains("shared secret"))
            // Both sources set (variable and file, or variable and flag): exit 2, naming neither value.
            let secretFile = world.folder + "/secret.txt"
            try (Self.fileSecret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
            var both = env
            both["SUBRECON_SHARED_SECRET_FILE"] = secretFile
            #expect(try await run("both sources", ["run"] + trace, both).exitCode == 2)
            #expect(try await run("both sources, flag", ["run", "--shared-secret-file", secretFile] + trace, env).exitCode == 2)
            #expect(try await run("user, both sources", ["user", "u1", "--shared-secret-file", secretFile] + trace, env).exitCode == 2)

            // The secret is never an argument.
            let asArgument = try await run("--shared-secret", ["run", "--shared-secret", Self.wrongSecret], env)
            #expect(asArgument.stderr.contains("Unknown option"), "\(asArgument.stderr)")
            #expect(asArgument.stderr.contains("--shared-secret"))
            // README, Exit codes: 2 is "usage or configuration error".
            #expect(asArgument.exitCode == 2, "an unknown option is a usage error: exit 2 per the contract, got \(asArgument.exitCode)")
            outputs.removeLast()  // the value was typed on the command line on purpose; not a leak of ours

            #expect(outputs.count >= 18)
            for (name, result) in outputs {
                for value in [Self.secret, Self.wrongSecret, Self.fileSecret] {
                    #expect(!result.stdout.contains(value), "\(name): secret on stdout")
                    #expect(!result.stderr.contains(value), "\(name): secret on stderr")
                }
            }
            // Nothing written to disk holds it: the database, its -wal and -shm, every report.
            let files = try FileManager.default.contentsOfDirectory(atPath: world.folder).filter { $0 != "secret.txt" }
            #expect(files.contains("subrecon.sqlite"))
            for file in files {
                let data = try Data(contentsOf: URL(fileURLWithPath: world.folder + "/" + file))
                for value in [Self.secret, Self.wrongSecret, Self.fileSecret] {
                    #expect(data.range(of: Data(value.utf8)) == nil, "\(file) holds a secret")
                }
            }
            for output in outputFiles { #expect(FileManager.default.fileExists(atPath: output)) }
        }
    }

    // MARK: - receipts are never logged

    @Test func receiptDataNeverAppearsInTheLogs() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let (file, imported) = try writeImport(world, [.active, .billingRetry, .invalidReceipt, .sandboxActive])
            let env = environment(world)
            let trace = ["--log-level", "trace"]
            var stderrs: [(String, String)] = []
            for (name, arguments) in [("import", ["import", file]), ("run", ["run"]), ("user", ["user", "u2"])] {
                let result = try await SubreconBinary.run(arguments + trace, environment: env)
                #expect(result.exitCode == 0, "\(name): \(result.stderr)")
                stderrs.append((name, result.stderr))
            }
            world.simulator.setGlobalFaults(.always(.nonJSONBody))
            let failed = try await SubreconBinary.run(["run", "--all"] + trace, environment: env)
            #expect(failed.exitCode == 1)
            stderrs.append(("failed run", failed.stderr))
            world.simulator.clearFaults()
            // Trace logging is on: something is logged, just never a receipt.
            #expect(stderrs.contains { !$0.1.isEmpty }, "trace logging produced no output at all")

            // What was imported and what Apple sent back as latest_receipt.
            let stored = try await world.database.writer.read { db in try String.fetchAll(db, sql: "SELECT receipt_data FROM receipts") }
            let receipts = Set(imported + stored)
            #expect(receipts.count > imported.count, "Apple's latest_receipt replaced some receipt data")
            for (name, text) in stderrs {
                for receipt in receipts {
                    #expect(!text.contains(receipt), "\(name): a whole receipt in the log")
                    #expect(!text.contains(receipt.prefix(40)), "\(name): the start of a receipt in the log")
                }
            }
        }
    }

    // MARK: - TLS is never disabled

    // scripts/setup.sh installs openssl, so this always runs; without it, it fails loudly.
    @Test
    func aSelfSignedServerIsRefusedUnlessItsCertificateIsTrusted() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await world.importScenarios([.active])
            let server = try SelfSignedTLSServer(answers: .byTheTest, folder: world.folder)
            defer { server.stop() }
            let url = "https://127.0.0.1:\(server.port)/verifyReceipt"
            var env = environment(world)
            env["SUBRECON_PRODUCTION_URL"] = url
            env["SUBRECON_SANDBOX_URL"] = url

            // Untrusted: refused at the handshake, nothing written.
            let refused = try await SubreconBinary.run(["run"], environment: env)
            #expect(refused.exitCode == 1, "\(refused.stdout)\(refused.stderr)")
            let refusedItem = try #require(try await world.report(.runItems).first)
            #expect(refusedItem["outcome"] == "failed")
            let refusedText = (refusedItem["message"] ?? "") + refused.stderr
            #expect(refusedText.contains("TLS") || refusedText.localizedCaseInsensitiveContains("certificate"), "\(refusedText)")
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
            #expect(!server.output.contains("POST /verifyReceipt"), "no request may be sent over an untrusted connection")

            // Trusted with --ca-file: the handshake succeeds, the request arrives and the answer is applied.
            let mark = server.output.count
            async let trustedRun = SubreconBinary.run(["run", "--all", "--ca-file", server.certificatePath], environment: env)
            let requested = await server.waitForOutput("POST /verifyReceipt", after: mark, seconds: 20)
            #expect(requested, "the request reached the server over TLS")
            if requested {
                server.respond(
                    #"{"status":0,"environment":"Production","latest_receipt_info":[{"transaction_id":"4200","original_transaction_id":"4200","product_id":"com.example.pro.monthly","purchase_date_ms":"1700000000000","expires_date_ms":"4102444800000"}],"pending_renewal_info":[]}"#
                )
            }
            let trusted = try await trustedRun
            let trustedItem = try #require(try await world.report(.runItems).first)
            let trustedText = (trustedItem["message"] ?? "") + trusted.stderr
            #expect(!trustedText.contains("TLS") && !trustedText.localizedCaseInsensitiveContains("certificate"), "\(trustedText)")
            #expect(trusted.exitCode == 0, "\(trusted.stdout)\(trusted.stderr)")
            #expect(trustedItem["outcome"] == "updated", "\(trustedItem)")
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions WHERE original_transaction_id = '4200'") == 1)
        }
    }

    // MARK: - files are 0600

    @Test func theDatabaseAndReportFilesAreReadableByTheOwnerOnly() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let (file, _) = try writeImport(world, [.active])
            let folder = world.folder + "/fresh"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let database = folder + "/created-by-the-binary.sqlite"
            var env = environment(world)
            env["SUBRECON_DB"] = database

            #expect(try await SubreconBinary.run(["import", file], environment: env).exitCode == 0)
            #expect(try await SubreconBinary.run(["run"], environment: env).exitCode == 0)
            let output = folder + "/subscriptions.csv"
            #expect(try await SubreconBinary.run(["report", "subscriptions", "--output", output], environment: env).exitCode == 0)
            // An existing, world-readable output file is replaced by an owner-only one.
            let existing = folder + "/runs.csv"
            FileManager.default.createFile(atPath: existing, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644])
            #expect(try await SubreconBinary.run(["report", "runs", "--output", existing], environment: env).exitCode == 0)
            #expect(try String(contentsOfFile: existing, encoding: .utf8).hasPrefix("run_id,"))

            for path in [database, output, existing] + [database + "-wal", database + "-shm"].filter { FileManager.default.fileExists(atPath: $0) } {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                let mode = try #require(attributes[.posixPermissions] as? Int, "\(path)")
                #expect(mode & 0o077 == 0, "\(path) is mode \(String(mode, radix: 8))")
                #expect(mode & 0o600 == 0o600, "\(path) is mode \(String(mode, radix: 8))")
            }
        }
    }
}
