import AppStoreSimulator
import AppleSignedData
import Crypto
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// The apps file through the built binary: a bad file stops every command before the database is
/// touched, import checks each row's app, the run goes app by app with each app's credentials and
/// exits 2 naming an app Apple refuses, and reports end with the app. An existing single-app
/// database and env file keep working with no step.
@Suite struct SeveralAppsBinaryTests {
    static let news = "com.example.news"
    static let cooking = "com.example.cooking"

    func writeSecret(_ world: TestWorld, _ name: String, _ secret: String) throws -> String {
        let path = world.folder + "/\(name).secret"
        _ = FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    func writeAppsFile(_ world: TestWorld, cookingSecret: String) throws -> String {
        let path = world.folder + "/apps.json"
        try """
            {"apps": [
              {"bundle_id": "\(Self.news)", "shared_secret_file": "\(try writeSecret(world, "news", TestWorld.secret))"},
              {"bundle_id": "\(Self.cooking)", "shared_secret_file": "\(try writeSecret(world, "cooking", cookingSecret))"}
            ]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func environment(_ world: TestWorld, appsFile: String?) -> [String: String] {
        var environment = world.storeEnvironment.merging([
            "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
            "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL,
        ]) { $1 }
        environment["SUBRECON_APPS_FILE"] = appsFile
        return environment
    }

    func writeImport(_ world: TestWorld, rows: [(user: String, app: String?)]) throws -> String {
        var lines = ["user_id,receipt_data,bundle_id"]
        for (index, row) in rows.enumerated() {
            lines.append("\(row.user),\(world.receipt(.active, id: Int64(index + 1))),\(row.app ?? "")")
        }
        let path = world.folder + "/receipts-\(UUID().uuidString).csv"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: StoreKind.allCases) func twoAppsThroughTheBinary(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let apps = try writeAppsFile(world, cookingSecret: "the-cooking-apps-wrong-secret")
            let env = environment(world, appsFile: apps)

            // A row without its app, and one naming an app the file does not list: nothing imported.
            let bad = try writeImport(world, rows: [("n1", Self.news), ("x1", nil), ("g1", "com.example.games")])
            let refused = try await SubreconBinary.run(["import", bad], environment: env)
            #expect(refused.exitCode == 65)
            #expect(refused.stderr.contains(":3: bundle_id is missing"))
            #expect(refused.stderr.contains(":4: bundle_id \"com.example.games\" is not an app of the apps file"))
            #expect(try await world.store.countReceipts(.all, nowMs: world.clock.nowMs) == 0)

            let good = try writeImport(world, rows: [("n1", Self.news), ("n2", Self.news), ("c1", Self.cooking)])
            let imported = try await SubreconBinary.run(["import", good], environment: env)
            #expect(imported.exitCode == 0, "\(imported.stderr)")

            // The cooking app's secret is wrong: Apple's 21004 stops that app only.
            let run = try await SubreconBinary.run(["run"], environment: env)
            #expect(run.exitCode == 2, "\(run.stderr)")
            #expect(run.stdout.contains("stopped for \(Self.cooking): Apple answered 21004; the other apps' work went on"), "\(run.stdout)")
            #expect(!run.stderr.contains("the-cooking-apps-wrong-secret") && !run.stdout.contains("the-cooking-apps-wrong-secret"))

            let report = try await SubreconBinary.run(["report", "subscriptions"], environment: env)
            let rows = CSVTable.parse(report.stdout)
            #expect(rows.map { $0["user_id"] } == ["n1", "n2"])
            #expect(rows.allSatisfy { $0["bundle_id"] == Self.news })
            let only = try await SubreconBinary.run(["report", "run-items", "--app", Self.news], environment: env)
            #expect(only.exitCode == 0, "\(only.stderr)")
            #expect(CSVTable.parse(only.stdout).map { $0["bundle_id"] } == [Self.news, Self.news])
            let unknown = try await SubreconBinary.run(["report", "subscriptions", "--app", "com.example.games"], environment: env)
            #expect(unknown.exitCode == 2)
            #expect(unknown.stderr.contains("--app must be one of \(Self.news), \(Self.cooking), not \"com.example.games\""))
            // The dashboard narrows too and says so; runs cover every app and refuse it.
            let page = world.folder + "/news-\(UUID().uuidString).html"
            let dashboard = try await SubreconBinary.run(["report", "dashboard", "--app", Self.news, "--output", page], environment: env)
            #expect(dashboard.exitCode == 0, "\(dashboard.stderr)")
            #expect(try String(contentsOfFile: page, encoding: .utf8).contains("Apps <code>\(Self.news)</code>"))
            let runs = try await SubreconBinary.run(["report", "runs", "--app", Self.news], environment: env)
            #expect(runs.exitCode == 2)
            #expect(runs.stderr.contains("a run spans every app"), "\(runs.stderr)")

            // `--app` keeps the run to the news app: exit 0.
            let newsOnly = try await SubreconBinary.run(["run", "--all", "--app", Self.news], environment: env)
            #expect(newsOnly.exitCode == 0, "\(newsOnly.stderr)")
            #expect(newsOnly.stdout.contains("2 receipts"), "\(newsOnly.stdout)")
        }
    }

    @Test func aBadAppsFileStopsEveryCommandBeforeTheDatabaseIsTouched() async throws {
        try await TestWorld.make().closing { world in
            let path = world.folder + "/apps.json"
            try #"{"apps": [{"bundle_id": "com.example.news", "shared_secret_file": "/s", "api_rat": 5}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            let database = world.folder + "/untouched.sqlite"
            let env = ["SUBRECON_DB": database, "SUBRECON_APPS_FILE": path]
            for command in [["run"], ["import", "-"], ["report", "subscriptions"], ["notifications", "import", "-"]] {
                let result = try await SubreconBinary.run(command, environment: env, stdin: Data())
                #expect(result.exitCode == 2, "\(command): \(result.stderr)")
                #expect(
                    result.stderr.contains("the apps file \(path): app 1 (com.example.news): unknown key \"api_rat\""),
                    "\(command): \(result.stderr)")
            }
            let clash = try await SubreconBinary.run(
                ["run"], environment: ["SUBRECON_DB": database, "SUBRECON_APPS_FILE": path, "SUBRECON_SHARED_SECRET": "s3cr3t"])
            #expect(clash.exitCode == 2)
            #expect(clash.stderr.contains("SUBRECON_SHARED_SECRET") && !clash.stderr.contains("s3cr3t"))
            #expect(!FileManager.default.fileExists(atPath: database), "a configuration error created the database")
        }
    }

    /// An existing single-app database and env file: the new version migrates the database by
    /// itself and every command works as before; the reports' new last column holds the app.
    @Test func anExistingSingleAppDeploymentUpgradesWithNoStep() async throws {
        try await TestWorld.make().closing { world in
            let env = environment(world, appsFile: nil).merging([
                "SUBRECON_SHARED_SECRET": TestWorld.secret, "SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID,
            ]) { $1 }
            // The database as the previous version left it: a receipt imported without an app.
            let file = try writeImport(world, rows: [("u1", nil), ("u2", nil)])
            #expect(try await SubreconBinary.run(["import", file], environment: env).exitCode == 0)
            try await world.execute("UPDATE receipts SET bundle_id = NULL")

            let run = try await SubreconBinary.run(["run"], environment: env)
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(run.stdout.contains("2 receipts") && run.stdout.contains("2 updated"), "\(run.stdout)")
            let report = try await SubreconBinary.run(["report", "subscriptions"], environment: env)
            let rows = CSVTable.parse(report.stdout)
            #expect(rows.count == 2)
            #expect(rows.allSatisfy { $0["bundle_id"] == SimulatedProducts.bundleID })
            #expect(CSVTable.header(report.stdout).last == "bundle_id")
        }
    }
}

/// `notifications backfill` with several apps: Apple keeps one notification history per app, so
/// each app's is asked with that app's key, and each notification is stored with its app.
@Suite struct SeveralAppsBackfillTests {
    @Test func eachAppsHistoryIsBackfilledWithItsOwnKey() async throws {
        let newsKey = P256.Signing.PrivateKey()
        try await TestWorld.make(
            otherApps: [SimulatedApp(bundleID: "com.example.news", appAppleID: 1_480_000_101, apiPublicKey: newsKey.publicKey)]).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let setup = try ServerAPIBinaryTests().setUp(world)
            let mine = try await NotificationProcessingTests.importedActiveSubscriber(world)
            var theirs = SimulatedScenario.active.subscriber(id: 2, nowMs: world.clock.nowMs, paddingBytes: 200)
            theirs.bundleID = "com.example.news"
            world.simulator.register(theirs)
            world.simulator.removeAllNotifications()
            let now = world.clock.nowMs
            let first = world.simulator.makeNotification(.didRenew, for: mine, atMs: now - 3_600_000)
            let second = world.simulator.makeNotification(.didRenew, for: theirs, atMs: now - 1_800_000)
            let newsKeyPath = world.folder + "/AuthKey_NEWS.p8"
            _ = FileManager.default.createFile(
                atPath: newsKeyPath, contents: Data(newsKey.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
            let appsFile = world.folder + "/apps.json"
            try """
                {"apps": [
                  {"bundle_id": "\(SimulatedProducts.bundleID)", "apple_api": "server-api", "api_key_file": "\(setup.keyPath)",
                   "api_key_id": "\(world.apiKey.keyID)", "api_issuer_id": "\(world.apiKey.issuerID)"},
                  {"bundle_id": "com.example.news", "apple_api": "server-api", "api_key_file": "\(newsKeyPath)",
                   "api_key_id": "NEWSKEY001", "api_issuer_id": "\(world.apiKey.issuerID)"}
                ]}
                """.write(toFile: appsFile, atomically: true, encoding: .utf8)
            // The apps file replaces every per-app variable of the single-app setup.
            var environment = setup.environment.filter { !AppsFile.clashingVariables.contains($0.key) }
            environment["SUBRECON_APPS_FILE"] = appsFile
            let since = ISO8601.string(fromMilliseconds: now - 86_400_000)

            let backfill = try await SubreconBinary.run(["notifications", "backfill", "--since", since], environment: environment)

            #expect(backfill.exitCode == 0, "\(backfill.stderr)")
            let lines = backfill.stdout.split(separator: "\n")
            #expect(lines.count == 2, "\(backfill.stdout)")
            #expect(lines.first?.hasPrefix("\(SimulatedProducts.bundleID): ") == true, "\(backfill.stdout)")
            #expect(lines.last?.hasPrefix("com.example.news: ") == true, "\(backfill.stdout)")
            let rows = try await world.report(.notifications)
            let apps = Dictionary(uniqueKeysWithValues: rows.map { ($0["notification_uuid"] ?? "", $0["bundle_id"] ?? "") })
            #expect(apps[first.notificationUUID] == SimulatedProducts.bundleID)
            #expect(apps[second.notificationUUID] == "com.example.news")
        }
    }
}
