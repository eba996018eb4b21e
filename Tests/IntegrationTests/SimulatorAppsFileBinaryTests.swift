import Crypto
import Foundation
import Testing

/// `subrecon simulator --apps-file`: the standalone simulator serves every app of subrecon's own
/// apps file, each checked with its own key, so a deployment of several apps can be tried against
/// it with the very file it will run with.
@Suite struct SimulatorAppsFileBinaryTests {
    static let news = "com.example.news"
    static let cooking = "com.example.cooking"

    struct Served {
        var child: SubreconBinary.Running
        var baseURL: String
        var printed: String
    }

    func writeKey(_ folder: String, _ name: String) -> String {
        let path = folder + "/AuthKey_\(name).p8"
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8),
            attributes: [.posixPermissions: 0o600])
        return path
    }

    func writeAppsFile(_ path: String, newsKey: String, cookingKey: String) throws {
        func app(_ bundleID: String, _ key: String, _ keyID: String) -> String {
            #"{"bundle_id": "\#(bundleID)", "apple_api": "server-api", "api_key_file": "\#(key)", "api_key_id": "\#(keyID)", "#
                + #""api_issuer_id": "57246542-96fe-1a63-e053-0824d011072a"}"#
        }
        try #"{"apps": [\#(app(Self.news, newsKey, "NEWSKEY001")), \#(app(Self.cooking, cookingKey, "COOKKEY001"))]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Starts `subrecon simulator --port 0 …` and waits until it has printed where it serves.
    func startSimulator(_ arguments: [String], folder: String) async throws -> Served {
        let child = try SubreconBinary.start(["simulator", "--port", "0"] + arguments, environment: [:], folder: folder)
        for _ in 0..<1_500 {
            let text = (try? String(contentsOfFile: folder + "/child.out", encoding: .utf8)) ?? ""
            if text.contains("Sample account"),
                let line = text.split(separator: "\n").first(where: { $0.contains("Server API:") }),
                let url = line.split(separator: " ").first(where: { $0.hasPrefix("http") })
            {
                return Served(child: child, baseURL: String(url), printed: text)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(child.processIdentifier, SIGKILL)
        Issue.record("the simulator printed nothing within 30 s: \((try? String(contentsOfFile: folder + "/child.err", encoding: .utf8)) ?? "")")
        throw CancellationError()
    }

    @Test func servesEveryAppOfTheAppsFileEachWithItsOwnKey() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-simapps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let newsKey = writeKey(folder, "NEWS")
        let cookingKey = writeKey(folder, "COOKING")
        let appsFile = folder + "/apps.json"
        try writeAppsFile(appsFile, newsKey: newsKey, cookingKey: cookingKey)
        let receipts = folder + "/receipts.csv"
        let root = folder + "/root.pem"
        let served = try await startSimulator(
            ["--apps-file", appsFile, "--write-sample-receipts", receipts, "--write-root-ca", root], folder: folder)
        defer { kill(served.child.processIdentifier, SIGKILL) }
        #expect(served.printed.contains("App \(Self.news) (Apple ID"), "\(served.printed)")
        #expect(served.printed.contains("App \(Self.cooking) (Apple ID"), "\(served.printed)")
        #expect(!served.printed.contains("BEGIN"), "no key material is printed")

        // The sample receipts name both apps, and a worker with the same file reconciles them all.
        let sample = try String(contentsOfFile: receipts, encoding: .utf8)
        let sampleApps = sample.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).last ?? "" }
        #expect(Set(sampleApps) == [Substring(Self.news), Substring(Self.cooking)], "\(Set(sampleApps))")
        var environment = [
            "SUBRECON_DB": folder + "/subrecon.sqlite", "SUBRECON_APPS_FILE": appsFile,
            "SUBRECON_API_URL": served.baseURL, "SUBRECON_API_SANDBOX_URL": served.baseURL + "/sandbox",
            "SUBRECON_APPLE_ROOT_CA_FILE": root,
        ]
        let imported = try await SubreconBinary.run(["import", receipts], environment: environment)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let run = try await SubreconBinary.run(["run"], environment: environment)
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let report = try await SubreconBinary.run(["report", "subscriptions"], environment: environment)
        let rows = CSVTable.parse(report.stdout)
        #expect(rows.filter { $0["bundle_id"] == Self.cooking }.count == 4, "\(report.stdout)")
        #expect(rows.filter { $0["bundle_id"] == Self.news }.count > 4, "\(report.stdout)")
        #expect(rows.contains { $0["bundle_id"] == Self.cooking && $0["status"] == "active" })

        // A worker whose cooking key is not the one the simulator holds: cooking's requests are
        // refused (401), so only that app stops; the news app's check completes.
        let otherFile = folder + "/apps-wrong-key.json"
        try writeAppsFile(otherFile, newsKey: newsKey, cookingKey: writeKey(folder, "OTHER"))
        environment["SUBRECON_APPS_FILE"] = otherFile
        environment["SUBRECON_DB"] = folder + "/second.sqlite"
        #expect(try await SubreconBinary.run(["import", receipts], environment: environment).exitCode == 0)
        let refused = try await SubreconBinary.run(["run"], environment: environment)
        #expect(refused.exitCode == 2, "\(refused.stdout)\(refused.stderr)")
        #expect((refused.stdout + refused.stderr).contains(Self.cooking), "\(refused.stdout)\(refused.stderr)")
        #expect(!(refused.stdout + refused.stderr).contains("stopped \(Self.news)"))
    }

    @Test func refusesTheAppsFileWithASingleAppSecretOrKey() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-simapps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = writeKey(folder, "NEWS")
        let appsFile = folder + "/apps.json"
        try writeAppsFile(appsFile, newsKey: key, cookingKey: key)

        let both = try await SubreconBinary.run(["simulator", "--apps-file", appsFile, "--api-key-file", key])
        #expect(both.exitCode == 2)
        #expect(both.stderr.contains("--apps-file"), "\(both.stderr)")
        try #"{"apps": [{"bundle_id": "com.example.news", "colour": "red"}]}"#.write(toFile: appsFile, atomically: true, encoding: .utf8)
        let bad = try await SubreconBinary.run(["simulator", "--apps-file", appsFile])
        #expect(bad.exitCode == 2)
        #expect(bad.stderr.contains(#"unknown key "colour""#), "\(bad.stderr)")
    }
}
