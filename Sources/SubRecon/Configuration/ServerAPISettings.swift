import AppleSignedData
import Foundation
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

/// Which Apple API a run asks.
public enum AppleAPI: String, Sendable, CaseIterable {
    case verifyReceipt = "verify-receipt"
    case serverAPI = "server-api"
}

/// The App Store Server API's settings, resolved and loaded: the key is parsed and the roots are
/// read before anything else happens, so a bad file is a configuration error (exit 2).
public struct ServerAPISettings: Sendable {
    /// The In-App Purchase key with its key ID, issuer ID and bundle ID. Never printed.
    public var key: AppStoreAPIKey
    public var endpoints: ServerAPIEndpoints
    /// Signed data must chain to these roots (Apple Root CA - G3 unless configured).
    public var verifier: SignedDataVerifier
    /// Requests per second at most, for the whole process (0 = no limit).
    public var requestsPerSecond: Double
    /// Checked against production answers when set.
    public var appAppleID: Int64?

    public static let defaultRequestsPerSecond = 40.0

    public init(
        key: AppStoreAPIKey, endpoints: ServerAPIEndpoints, verifier: SignedDataVerifier,
        requestsPerSecond: Double = ServerAPISettings.defaultRequestsPerSecond, appAppleID: Int64? = nil
    ) {
        self.key = key
        self.endpoints = endpoints
        self.verifier = verifier
        self.requestsPerSecond = requestsPerSecond
        self.appAppleID = appAppleID
    }

    public var bundleID: String { key.bundleID }

    /// Flags given on the command line; nil when not given.
    public struct Flags: Sendable {
        public var keyFile: String?
        public var keyID: String?
        public var issuerID: String?
        public var bundleID: String?
        public var productionURL: String?
        public var sandboxURL: String?
        public var rootCAFile: String?
        public var rate: Double?
        public var appAppleID: Int64?

        public init(
            keyFile: String? = nil, keyID: String? = nil, issuerID: String? = nil, bundleID: String? = nil,
            productionURL: String? = nil, sandboxURL: String? = nil, rootCAFile: String? = nil, rate: Double? = nil,
            appAppleID: Int64? = nil
        ) {
            self.keyFile = keyFile
            self.keyID = keyID
            self.issuerID = issuerID
            self.bundleID = bundleID
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.rootCAFile = rootCAFile
            self.rate = rate
            self.appAppleID = appAppleID
        }
    }

    /// `SUBRECON_APPLE_API` / `--apple-api`.
    public static func api(environment: [String: String], flag: String?) throws(ConfigurationError) -> AppleAPI {
        let text = flag ?? Settings.nonEmpty(environment["SUBRECON_APPLE_API"]) ?? AppleAPI.verifyReceipt.rawValue
        guard let api = AppleAPI(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidValue(setting: "SUBRECON_APPLE_API / --apple-api", value: text, validChoices: AppleAPI.allCases.map(\.rawValue))
        }
        return api
    }

    public static func resolve(
        environment: [String: String], flags: Flags, warnings: inout [String]
    ) throws(ConfigurationError) -> ServerAPISettings {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? Settings.nonEmpty(environment[variable]))?.trimmingCharacters(in: .whitespaces)
        }
        let keyFile = value(flags.keyFile, "SUBRECON_API_KEY_FILE")
        let keyID = value(flags.keyID, "SUBRECON_API_KEY_ID")
        let issuerID = value(flags.issuerID, "SUBRECON_API_ISSUER_ID")
        let bundleID = value(flags.bundleID, "SUBRECON_BUNDLE_ID")
        var missing: [String] = []
        if keyFile == nil { missing.append("SUBRECON_API_KEY_FILE / --api-key-file") }
        if keyID == nil { missing.append("SUBRECON_API_KEY_ID / --api-key-id") }
        if issuerID == nil { missing.append("SUBRECON_API_ISSUER_ID / --api-issuer-id") }
        if bundleID == nil { missing.append("SUBRECON_BUNDLE_ID / --bundle-id") }
        guard let keyFile, let keyID, let issuerID, let bundleID else {
            throw .other(
                "the App Store Server API (SUBRECON_APPLE_API=server-api) needs " + missing.joined(separator: ", ")
                    + " (the In-App Purchase key from App Store Connect, its key ID, the issuer ID and the app's bundle ID)")
        }
        let pem = try readSecretFile(keyFile, warnings: &warnings)
        let key: AppStoreAPIKey
        do {
            key = try AppStoreAPIKey(privateKeyPEM: pem, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
        } catch {
            throw .other("the API key file \(keyFile) (SUBRECON_API_KEY_FILE): \(error.description)")
        }

        let production = value(flags.productionURL, "SUBRECON_API_URL") ?? ServerAPIEndpoints.apple.production
        let sandbox = value(flags.sandboxURL, "SUBRECON_API_SANDBOX_URL") ?? ServerAPIEndpoints.apple.sandbox
        try Settings.checkURL(production, setting: "SUBRECON_API_URL / --api-url")
        try Settings.checkURL(sandbox, setting: "SUBRECON_API_SANDBOX_URL / --api-sandbox-url")

        let verifier = try rootVerifier(file: value(flags.rootCAFile, "SUBRECON_APPLE_ROOT_CA_FILE"))

        var rate = defaultRequestsPerSecond
        if let flag = flags.rate {
            rate = flag
        } else if let text = Settings.nonEmpty(environment["SUBRECON_API_RATE"]) {
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw .invalidNumber(setting: "SUBRECON_API_RATE", value: text, expected: "requests per second, 0 to 10000 (0 = no limit)")
            }
            rate = parsed
        }
        guard rate.isFinite, (0...10_000).contains(rate) else {
            throw .invalidNumber(
                setting: "SUBRECON_API_RATE / --api-rate", value: "\(rate)", expected: "requests per second, 0 to 10000 (0 = no limit)")
        }

        let appAppleID = try appAppleID(flag: flags.appAppleID, environment: environment)
        return ServerAPISettings(
            key: key, endpoints: ServerAPIEndpoints(production: production, sandbox: sandbox), verifier: verifier,
            requestsPerSecond: rate, appAppleID: appAppleID)
    }

    /// A verifier trusting the root certificate(s) of `file` (SUBRECON_APPLE_ROOT_CA_FILE), or
    /// Apple Root CA - G3 when none is set.
    static func rootVerifier(file rootFile: String?) throws(ConfigurationError) -> SignedDataVerifier {
        guard let rootFile else { return .apple }
        guard let text = try? String(contentsOfFile: rootFile, encoding: .utf8) else {
            throw .other("cannot read the root certificate file \(rootFile) (SUBRECON_APPLE_ROOT_CA_FILE / --apple-root-ca-file)")
        }
        do {
            return try SignedDataVerifier(rootPEM: text)
        } catch {
            throw .other("the root certificate file \(rootFile) (SUBRECON_APPLE_ROOT_CA_FILE): \(error.description)")
        }
    }

    /// `SUBRECON_APP_APPLE_ID`: the app's Apple ID, checked in production answers when set.
    static func appAppleID(flag: Int64?, environment: [String: String]) throws(ConfigurationError) -> Int64? {
        if let flag { return flag }
        guard let text = Settings.nonEmpty(environment["SUBRECON_APP_APPLE_ID"]) else { return nil }
        guard let parsed = Int64(text.trimmingCharacters(in: .whitespaces)), parsed > 0 else {
            throw .invalidNumber(setting: "SUBRECON_APP_APPLE_ID", value: text, expected: "the app's Apple ID (a positive whole number)")
        }
        return parsed
    }

    /// A secret file's text; a file group or others can read gets a warning (as the shared secret's).
    static func readSecretFile(_ path: String, warnings: inout [String]) throws(ConfigurationError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not UTF-8" : "no such file"
            throw .other("cannot read the API key file \(path) (SUBRECON_API_KEY_FILE / --api-key-file): \(reason)")
        }
        if let warning = SecretFile.readableByOthersWarning(path, what: "the API key file") { warnings.append(warning) }
        return text
    }
}

extension ServerAPISettings {
    /// The one place a Server API connection is made for an app (a run's status and history calls,
    /// `link`'s Set App Account Token, a backfill's notification history): the app's endpoints and
    /// key, whose JWT lives in Apple's real time whatever clock the run's states use, the app's
    /// rate limiter, and the run's request timeout and retry policy.
    package func connection(transport: any HTTPTransport, limiter: APIRateLimiter, settings: Settings) -> ServerAPIConnection {
        ServerAPIConnection(
            transport: transport, endpoints: endpoints,
            tokens: BearerTokenProvider(key: key, clock: { WallClock.unixMilliseconds() }), limiter: limiter,
            requestTimeout: settings.requestTimeout, retryPolicy: settings.retryPolicy,
            clockMs: { WallClock.unixMilliseconds() })
    }
}
