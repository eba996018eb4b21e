import AppStoreSimulator
import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The built binary, run as cron and operators run it, against the simulator on a loopback port.
@Suite struct BinaryEndToEndTests {
    func environment(_ world: TestWorld, secret: String? = TestWorld.secret) -> [String: String] {
        var env = [
            "SUBRECON_DB": world.databasePath,
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
        ]
        if let secret { env["SUBRECON_SHARED_SECRET"] = secret }
        return env
    }

    func writeImport(_ world: TestWorld, _ scenarios: [SimulatedScenario]) throws -> String {
        var lines = ["user_id,receipt_data,product_id"]
        for (index, scenario) in scenarios.enumerated() {
            lines.append("u\(index + 1),\(world.receipt(scenario, id: Int64(index + 1))),\(scenario.expectedProductID ?? "")")
        }
        let path = world.folder + "/receipts.csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func importRunAndReportThroughTheBinary() async throws {
        try await TestWorld.make().closing { world in
            // The binary runs on the wall clock; the simulator answers on the same wall clock here, and
            // the receipts are made on it too (made on the world's fixed date, the grace period ended
            // once that date was more than its length ago).
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let file = try writeImport(world, [.active, .gracePeriod, .expired])

            let imported = try await SubreconBinary.run(["import", file], environment: environment(world))
            #expect(imported.exitCode == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("imported 3 receipt(s)"))
            let again = try await SubreconBinary.run(["import", file], environment: environment(world))
            #expect(again.stdout.contains("imported 0 receipt(s); 3 already stored"))

            let run = try await SubreconBinary.run(["run"], environment: environment(world))
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(run.stdout.contains("3 receipts"))

            let report = try await SubreconBinary.run(["report", "subscriptions"], environment: environment(world))
            #expect(report.exitCode == 0)
            #expect(CSVTable.header(report.stdout) == ReportKind.subscriptions.columns)
            let statuses = CSVTable.parse(report.stdout).map { $0["status"] ?? "" }
            #expect(statuses.sorted() == ["active", "expired", "grace_period"])

            let output = world.folder + "/runs.csv"
            let runs = try await SubreconBinary.run(["report", "runs", "--output", output], environment: environment(world))
            #expect(runs.exitCode == 0)
            let written = try String(contentsOfFile: output, encoding: .utf8)
            #expect(CSVTable.parse(written).first?["exit_code"] == "0")

            // The secret appears nowhere: not in output, not in the database file.
            let database = try Data(contentsOf: URL(fileURLWithPath: world.databasePath))
            for text in [imported.stdout, imported.stderr, run.stdout, run.stderr, report.stdout, written] {
                #expect(!text.contains(TestWorld.secret))
            }
            #expect(database.range(of: Data(TestWorld.secret.utf8)) == nil)
        }
    }

    @Test func aBadImportFileIsReportedByLineAndImportsNothing() async throws {
        try await TestWorld.make().closing { world in
            let good = world.receipt(.active, id: 1)
            let path = world.folder + "/bad.csv"
            try "user_id,receipt_data\nu1,\(good)\n,\(good)\nu3,not base64!\nu4,\(good)\n"
                .write(toFile: path, atomically: true, encoding: .utf8)

            let result = try await SubreconBinary.run(["import", path], environment: environment(world))

            #expect(result.exitCode == 65)
            #expect(result.stderr.contains("\(path):3:"))
            #expect(result.stderr.contains("\(path):4:"))
            #expect(!result.stderr.contains("\(path):2:"))
            #expect(try await world.count("SELECT COUNT(*) FROM receipts") == 0)
        }
    }

    @Test func anUnreadableImportFileExits66() async throws {
        try await TestWorld.make().closing { world in
            let result = try await SubreconBinary.run(["import", world.folder + "/missing.csv"], environment: environment(world))
            #expect(result.exitCode == 66)
            #expect(result.stderr.contains("missing.csv"))
        }
    }

    @Test func anUnknownUserExits2WithAClearMessage() async throws {
        try await TestWorld.make().closing { world in
            let result = try await SubreconBinary.run(["user", "nobody-42"], environment: environment(world))
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("nobody-42"))
            #expect(try await world.count("SELECT COUNT(*) FROM runs") == 0)
        }
    }

    @Test func userCommandPrintsBeforeAndAfter() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let file = try writeImport(world, [.refunded])
            _ = try await SubreconBinary.run(["import", file], environment: environment(world))

            let result = try await SubreconBinary.run(["user", "u1"], environment: environment(world))

            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stdout.contains("new *"))
            #expect(result.stdout.contains("refunded"))
            #expect(result.stdout.contains("Apple status 0"))
        }
    }

    @Test func aMissingSecretIsAConfigurationErrorEvenWithNothingDue() async throws {
        try await TestWorld.make().closing { world in
            let result = try await SubreconBinary.run(["run"], environment: environment(world, secret: nil))
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("SUBRECON_SHARED_SECRET"))
        }
    }

    @Test func bothSecretSourcesAreAConfigurationError() async throws {
        try await TestWorld.make().closing { world in
            let secretFile = world.folder + "/secret"
            try "other-secret\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
            var env = environment(world)
            env["SUBRECON_SHARED_SECRET_FILE"] = secretFile
            let result = try await SubreconBinary.run(["run"], environment: env)
            #expect(result.exitCode == 2)
            #expect(!result.stderr.contains("other-secret"))
            #expect(!result.stderr.contains(TestWorld.secret))
        }
    }

    @Test func aWrongSecretExits2AndNamesTheSharedSecret() async throws {
        try await TestWorld.make().closing { world in
            let file = try writeImport(world, [.active])
            _ = try await SubreconBinary.run(["import", file], environment: environment(world))

            let result = try await SubreconBinary.run(["run"], environment: environment(world, secret: "wrong-secret-value"))

            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("shared secret"))
            #expect(!result.stderr.contains("wrong-secret-value"))
            #expect(try await world.count("SELECT COUNT(*) FROM subscriptions") == 0)
        }
    }

    @Test func badFlagsAreUsageErrors() async throws {
        let concurrency = try await SubreconBinary.run(["run", "--concurrency", "0"])
        #expect(concurrency.exitCode != 0)
        #expect(concurrency.stderr.contains("--concurrency"))
        let kind = try await SubreconBinary.run(["report", "nonsense"])
        #expect(kind.exitCode != 0)
        #expect(kind.stderr.contains("subscriptions"))
    }

    /// The demo's subscriptions table (issue 34: an aligned table, not the 17-column CSV): each
    /// row's cells, user, app, product, status, entitled, expires.
    static func demoTable(_ stdout: String) -> [[String]] {
        stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            .filter { $0.count == 6 && ($0[0].hasPrefix("demo-") || $0[0].hasPrefix("cooking-")) }
    }

    @Test func demoRunsTheWholePathAndPrintsEveryStatus() async throws {
        let result = try await SubreconBinary.run(["demo"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let table = Self.demoTable(result.stdout)
        for status in ["active", "grace_period", "billing_retry", "expired", "refunded"] {
            #expect(table.contains { $0[3] == status }, "\(status)")
        }
        // A refund Apple made after the run arrives through the receiver and changes the subscription.
        #expect(result.stdout.contains("for demo-18-refund-notification: active -> refunded (the receiver answered 200)"))
        #expect(table.contains { $0 == ["demo-18-refund-notification", "com.example.subrecon", "com.example.pro.monthly", "refunded", "no", $0[5]] })
        // Every change's event delivered to the demo's receiver, each signature checked; the
        // refund among those shown, as the second event of its subscription.
        let webhooks = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("webhooks: ") })
        let delivered = try #require(webhooks.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        #expect(delivered >= 20)
        #expect(webhooks.contains("\(delivered) signature(s) checked") && webhooks.contains("; 0 pending"))
        #expect(result.stdout.contains(" subscription.refunded demo-18-refund-notification seq 2 (notification -> refunded)"))
        // Two apps in one deployment, each asked with its own secret: every account's row names its app.
        #expect(result.stdout.contains("  com.example.subrecon.cooking: 4 receipts, 4 subscriptions (2 active, 1 billing_retry, 1 expired)"))
        #expect(table.filter { $0[0].hasPrefix("cooking-") }.allSatisfy { $0[1] == "com.example.subrecon.cooking" })
        #expect(table.filter { $0[0].hasPrefix("demo-") }.allSatisfy { $0[1] == "com.example.subrecon" })
        #expect(table.filter { $0[0].hasPrefix("cooking-") }.count == 4)
        // Aligned: every row's status starts in the header's status column; no line is a CSV row.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("user ") && $0.hasSuffix(" expires") })
        let statusColumn = try #require(header.range(of: "status")).lowerBound.utf16Offset(in: header)
        for line in lines where line.hasPrefix("demo-") || line.hasPrefix("cooking-") {
            let cells = line.split(separator: " ")
            #expect(line.range(of: " \(cells[3]) ")?.lowerBound.utf16Offset(in: line) == statusColumn - 1, "\(line)")
        }
        #expect(!lines.contains { $0.hasPrefix("user_id,") || $0.hasPrefix("demo-01-active,") })
    }

    @Test func theServerAPIDemoShowsTheSameStatesAndTheSameNotification() async throws {
        let old = try await SubreconBinary.run(["demo"])
        let new = try await SubreconBinary.run(["demo", "--apple-api", "server-api"])
        #expect(new.exitCode == 0, "\(new.stderr)")
        // user, app, product, status, entitled: the same rows from either API.
        func states(_ stdout: String) -> [[String]] { Self.demoTable(stdout).filter { $0[0].hasPrefix("demo-") }.map { Array($0.prefix(5)) } }
        #expect(states(new.stdout) == states(old.stdout))
        #expect(states(new.stdout).count == 16, "one row per subscription of the 18 accounts, none for the invalid and gone ones")
        #expect(new.stdout.contains("active -> refunded (the receiver answered 200)"))
        // The server-api demo ends with the ledger's money and a dashboard; verifyReceipt says where money comes from.
        #expect(new.stdout.contains("revenue (Production;"))
        #expect(new.stdout.contains("  GBP  gross 143.93 (7 paid periods), refunded 38.25 (1 refund)"), "\(new.stdout)")
        #expect(new.stdout.contains("  JPY  gross 30000 (2 paid periods)"))
        #expect(old.stdout.contains("verifyReceipt gives no prices"))
        // Then Apple's sales reports of the last week: the purchase nobody uploaded is the one lost order.
        #expect(new.stdout.contains("Apple's sales reports (fetched from the simulator"))
        #expect(new.stdout.contains("lost orders found: 1 "), "\(new.stdout)")
        let lost = new.stdout.split(separator: "\n").filter { $0.contains("lost order: ") }
        #expect(lost.count == 1 && lost[0].contains("com.example.pro.monthly US 9.99 USD × 1"), "\(lost)")
        #expect(!old.stdout.contains("Apple's sales reports"))
        for output in [old.stdout, new.stdout] {
            let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("dashboard: ") })
            let path = String(line.dropFirst("dashboard: ".count).prefix { $0 != " " })
            let page = try String(contentsOfFile: path, encoding: .utf8)
            #expect(page.contains("<svg"))
            if output == new.stdout {
                #expect(page.contains("lost orders only Apple&#39;s sales report shows</div><div class=\"value\">1<"))
                #expect(page.contains("id=\"apple-parity\""))
            }
        }
    }

    /// The demo's "Explore further" commands, run exactly as printed (through a shell, from
    /// another folder than the repository's): each works, exit 0.
    @Test(arguments: ["verify-receipt", "server-api"]) func demoCommandsToExploreFurtherWorkAsPrinted(api: String) async throws {
        let demo = try await SubreconBinary.run(["demo", "--apple-api", api])
        #expect(demo.exitCode == 0, "\(demo.stderr)")
        let lines = demo.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("Explore further") })
        let commands = lines[(start + 1)...].prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(commands.count >= (api == "server-api" ? 6 : 5), "\(demo.stdout)")
        #expect(commands.allSatisfy { $0.hasPrefix(SubreconBinary.path + " ") || $0.hasPrefix("'") })
        #expect(commands.contains { $0.contains(" user demo-18-refund-notification --history ") })
        for command in commands {
            let result = try await SubreconBinary.run(
                ["-c", "cd / && " + command], executable: "/bin/sh", environment: [:])
            #expect(result.exitCode == 0, "\(command): \(result.stderr)")
            #expect(!result.stdout.isEmpty, "\(command)")
        }
        let database = try #require(commands.first?.components(separatedBy: " --db ").last)
        try? FileManager.default.removeItem(atPath: (database as NSString).deletingLastPathComponent)
    }
}
