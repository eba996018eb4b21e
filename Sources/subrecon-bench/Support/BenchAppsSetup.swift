import AppStoreSimulator
import Crypto
import Foundation
import SubRecon
import SubReconHTTP

/// A deployment of one or more apps for a measurement: subrecon's apps file (each app its own
/// shared secret or In-App Purchase key, and `api_rate`), `subrecon simulator --apps-file` (its
/// own process) serving the same file with its root CA written out, and the worker environment
/// that uses the file. The simulator's `GET /simulator/statistics` then gives each app's requests,
/// 429s and rate as Apple's side saw them, all workers together.
struct BenchAppsSetup {
    let simulator: SimulatorProcess
    let appsFile: String
    let rootFile: String
    let bundleIDs: [String]
    let appleAPI: AppleAPI

    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// The first app is the simulator's own (`com.example.subrecon`), the others named after it.
    static func bundleIDs(count: Int) -> [String] {
        (0..<count).map { $0 == 0 ? SimulatedProducts.bundleID : SimulatedProducts.bundleID + ".app\($0 + 1)" }
    }

    /// Writes the apps' secrets or keys and the apps file into `folder` and starts the simulator
    /// (the caller stops it). `workerRate` is each app's `api_rate` (0: no limit), and
    /// `simulatorRateLimit` the simulator's 429 threshold per app (nil: none).
    static func start(
        subrecon: String, folder: String, apps: Int, appleAPI: AppleAPI, latencyMs: Int, workerRate: Int,
        simulatorRateLimit: Double?
    ) throws -> BenchAppsSetup {
        let bundleIDs = bundleIDs(count: apps)
        var entries: [String] = []
        for (index, bundleID) in bundleIDs.enumerated() {
            switch appleAPI {
            case .verifyReceipt:
                let secret = folder + "/app\(index + 1).secret"
                try write(UUID().uuidString.replacingOccurrences(of: "-", with: "") + "\n", to: secret)
                entries.append(
                    #"{"bundle_id": "\#(bundleID)", "apple_api": "verify-receipt", "shared_secret_file": "\#(secret)"}"#)
            case .serverAPI:
                let key = folder + "/AuthKey_APP\(index + 1).p8"
                try write(P256.Signing.PrivateKey().pemRepresentation, to: key)
                entries.append(
                    #"{"bundle_id": "\#(bundleID)", "apple_api": "server-api", "api_key_file": "\#(key)", "#
                        + #""api_key_id": "BENCHKEY0\#(index + 1)", "api_issuer_id": "\#(issuerID)", "api_rate": \#(workerRate)}"#)
            }
        }
        let appsFile = folder + "/apps.json"
        try write(#"{"apps": [\#(entries.joined(separator: ",\n  "))]}"# + "\n", to: appsFile)
        let rootFile = folder + "/simulator-root.pem"
        var arguments = ["--apps-file", appsFile, "--write-root-ca", rootFile, "--no-register-verified-receipts"]
        if let simulatorRateLimit { arguments += ["--api-rate-limit", "\(simulatorRateLimit)"] }
        let simulator = try SimulatorProcess.start(
            subrecon: subrecon, latencyMs: latencyMs, secretFile: nil, folder: folder, extraArguments: arguments)
        guard simulator.serverAPIURL != nil else {
            simulator.stop()
            throw ChildProcess.SpawnError(description: "the simulator printed no `Server API:` line (see \(folder)/simulator.out)")
        }
        return BenchAppsSetup(
            simulator: simulator, appsFile: appsFile, rootFile: rootFile, bundleIDs: bundleIDs, appleAPI: appleAPI)
    }

    private static func write(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ChildProcess.SpawnError(description: "cannot write \(path)") }
    }

    /// A worker's environment against the simulator (the caller adds `SUBRECON_DB`).
    func workerEnvironment() -> [String: String] {
        var environment = ChildProcess.baseEnvironment()
        environment["SUBRECON_APPS_FILE"] = appsFile
        environment["SUBRECON_PRODUCTION_URL"] = simulator.productionURL
        environment["SUBRECON_SANDBOX_URL"] = simulator.sandboxURL
        environment["SUBRECON_API_URL"] = simulator.serverAPIURL
        environment["SUBRECON_API_SANDBOX_URL"] = simulator.serverAPISandboxURL
        environment["SUBRECON_APPLE_ROOT_CA_FILE"] = rootFile
        environment["SUBRECON_LOG_LEVEL"] = "notice"
        return environment
    }

    /// What the simulator counted (`GET /simulator/statistics`).
    struct Figures {
        struct App {
            var bundleID: String
            var requests: Int
            var rateLimited: Int
            var firstRequestMs: Int64?
            var lastRequestMs: Int64?

            /// Requests after the first over the time from the first to the last.
            var rate: Double? {
                guard let first = firstRequestMs, let last = lastRequestMs, last > first, requests > 1 else { return nil }
                return Double(requests - 1) * 1000 / Double(last - first)
            }
        }

        var verifyReceiptRequests: Int
        var serverAPIRequests: Int
        var rateLimited: Int
        var apps: [App]
    }

    func figures() async throws -> Figures {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let url = (simulator.serverAPIURL ?? "") + "/simulator/statistics"
        let response = try await transport.send(HTTPRequest(url: url, method: "GET", timeout: .seconds(10)))
        guard response.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let apps = object["apps"] as? [[String: Any]]
        else {
            throw ChildProcess.SpawnError(
                description: "\(url) answered HTTP \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        return Figures(
            verifyReceiptRequests: object["verifyReceiptRequests"] as? Int ?? 0,
            serverAPIRequests: object["serverAPIRequests"] as? Int ?? 0, rateLimited: object["rateLimited"] as? Int ?? 0,
            apps: apps.map { app in
                Figures.App(
                    bundleID: app["bundleId"] as? String ?? "?", requests: app["requests"] as? Int ?? 0,
                    rateLimited: app["rateLimited"] as? Int ?? 0, firstRequestMs: (app["firstRequestMs"] as? Int).map(Int64.init),
                    lastRequestMs: (app["lastRequestMs"] as? Int).map(Int64.init))
            })
    }
}
