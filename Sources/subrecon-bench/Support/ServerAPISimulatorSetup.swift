import AppStoreSimulator
import Crypto
import Foundation

/// What a Server API measurement starts from: a fresh In-App Purchase key (`.p8`, mode 0600) that
/// both sides use, `subrecon simulator` (its own process) accepting only that key, with its root CA
/// written out, and the environment of a worker in server-api mode against it.
struct ServerAPISimulatorSetup {
    let simulator: SimulatorProcess
    let keyFile: String
    let rootFile: String
    let apiURL: String
    let apiSandboxURL: String

    static let bundleID = SimulatedProducts.bundleID
    static let keyID = "BENCHKEY01"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// Writes the key into `folder` and starts the simulator (the caller stops it).
    static func start(
        subrecon: String, folder: String, latencyMs: Int, historyPageSize: Int, rateLimit: Double?
    ) throws -> ServerAPISimulatorSetup {
        let keyFile = folder + "/AuthKey_\(keyID).p8"
        guard FileManager.default.createFile(
            atPath: keyFile, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8),
            attributes: [.posixPermissions: 0o600])
        else { throw ChildProcess.SpawnError(description: "cannot write \(keyFile)") }
        let rootFile = folder + "/simulator-root.pem"
        var arguments = [
            "--write-root-ca", rootFile, "--api-key-file", keyFile, "--history-page-size", "\(historyPageSize)",
            "--no-register-verified-receipts",
        ]
        if let rateLimit { arguments += ["--api-rate-limit", "\(rateLimit)"] }
        let simulator = try SimulatorProcess.start(
            subrecon: subrecon, latencyMs: latencyMs, secretFile: nil, folder: folder, extraArguments: arguments)
        guard let apiURL = simulator.serverAPIURL, let apiSandboxURL = simulator.serverAPISandboxURL else {
            simulator.stop()
            throw ChildProcess.SpawnError(description: "the simulator printed no `Server API:` line (see \(folder)/simulator.out)")
        }
        return ServerAPISimulatorSetup(
            simulator: simulator, keyFile: keyFile, rootFile: rootFile, apiURL: apiURL, apiSandboxURL: apiSandboxURL)
    }

    /// A worker's environment in server-api mode against the simulator, at `SUBRECON_API_RATE=rate`
    /// (the caller adds `SUBRECON_DB`).
    func workerEnvironment(rate: Int) -> [String: String] {
        var environment = ChildProcess.baseEnvironment()
        environment["SUBRECON_APPLE_API"] = "server-api"
        environment["SUBRECON_API_KEY_FILE"] = keyFile
        environment["SUBRECON_API_KEY_ID"] = Self.keyID
        environment["SUBRECON_API_ISSUER_ID"] = Self.issuerID
        environment["SUBRECON_BUNDLE_ID"] = Self.bundleID
        environment["SUBRECON_API_URL"] = apiURL
        environment["SUBRECON_API_SANDBOX_URL"] = apiSandboxURL
        environment["SUBRECON_APPLE_ROOT_CA_FILE"] = rootFile
        environment["SUBRECON_API_RATE"] = "\(rate)"
        environment["SUBRECON_LOG_LEVEL"] = "notice"
        return environment
    }
}
