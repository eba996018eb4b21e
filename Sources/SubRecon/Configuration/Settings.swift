import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Everything a reconciliation needs to know, resolved from the environment and the flags
/// (a flag wins over its variable). The secret is only ever read from the environment or a file.
public struct Settings: Sendable {
    /// SUBRECON_DB / --db resolved with the database password file.
    public var database: DatabaseLocation
    /// The SQLite path, or the PostgreSQL URL masked: for messages.
    public var databasePath: String { database.description }
    /// The apps this deployment serves, each with what Apple scopes per app: one from the
    /// single-app variables, or every app of the apps file, in the file's order.
    public var apps: [AppSettings]
    /// SUBRECON_APPS_FILE / --apps-file, when the apps come from it.
    public var appsFile: String?
    /// `--app` (repeatable): the bundle IDs a command is restricted to; empty means every app.
    public var appFilter: [String] = []
    /// The apps a command works on: every app, or those `--app` names, in the apps' order.
    public var selectedApps: [AppSettings] {
        appFilter.isEmpty ? apps : apps.filter { $0.bundleID.map(appFilter.contains) ?? false }
    }
    /// Which Apple API `run` and `user` ask (the first app's).
    public var appleAPI: AppleAPI {
        get { apps[0].appleAPI }
        set { apps[0].appleAPI = newValue }
    }
    /// verifyReceipt's secret (the first app's); nil in server-api mode when none is configured.
    public var sharedSecret: SharedSecret? {
        get { apps[0].sharedSecret }
        set { apps[0].sharedSecret = newValue }
    }
    /// The App Store Server API's settings (the first app's); set in server-api mode (and for `parity`).
    public var serverAPI: ServerAPISettings? {
        get { apps[0].serverAPI }
        set { apps[0].serverAPI = newValue }
    }
    public var endpoints: VerifyReceiptEndpoints
    /// verifyReceipt requests in flight at most.
    public var concurrency: Int
    /// Products to reconcile (the first app's); empty means every auto-renewable product found.
    public var products: Set<String> {
        get { apps[0].products }
        set { apps[0].products = newValue }
    }
    public var requestTimeout: Duration
    /// Extra CA bundle for a private verifyReceipt-compatible endpoint.
    public var caFile: String?
    /// Retries of a receipt within a run.
    public var retryPolicy: RetryPolicy = .standard
    /// An answer larger than this is refused without being buffered whole.
    public var maxResponseBytes: Int = Settings.defaultMaxResponseBytes
    /// Where and how events are delivered (each app's endpoint, concurrency, timeout, schedule).
    public var webhooks: WebhookSettings = .unconfigured
    /// Things the operator should know but that don't stop the run (e.g. a secret file others can read).
    public var warnings: [String]

    public static let defaultDatabasePath = "./subrecon.sqlite"
    /// Enough to keep the run bound by Apple's latency rather than by our loop, small enough to be
    /// polite to Apple; raise it for large nightly batches.
    public static let defaultConcurrency = 32
    public static let defaultRequestTimeoutSeconds = 30
    public static let defaultMaxResponseBytes = 20 * 1024 * 1024

    public init(
        databasePath: String, sharedSecret: SharedSecret?, endpoints: VerifyReceiptEndpoints, concurrency: Int,
        products: Set<String>, requestTimeout: Duration, caFile: String?, warnings: [String],
        retryPolicy: RetryPolicy = .standard, maxResponseBytes: Int = Settings.defaultMaxResponseBytes,
        appleAPI: AppleAPI = .verifyReceipt, serverAPI: ServerAPISettings? = nil, database: DatabaseLocation? = nil,
        bundleID: String? = nil, appAppleID: Int64? = nil, apps: [AppSettings]? = nil, appsFile: String? = nil
    ) {
        self.database = database ?? .sqlite(path: databasePath)
        self.apps = apps ?? [
            AppSettings(
                bundleID: bundleID ?? serverAPI?.bundleID, appleAPI: appleAPI, sharedSecret: sharedSecret,
                serverAPI: serverAPI, products: products, appAppleID: appAppleID)
        ]
        self.appsFile = appsFile
        self.endpoints = endpoints
        self.concurrency = concurrency
        self.requestTimeout = requestTimeout
        self.caFile = caFile
        self.warnings = warnings
        self.retryPolicy = retryPolicy
        self.maxResponseBytes = maxResponseBytes
    }

    /// Flags given on the command line; nil when not given.
    public struct Flags: Sendable {
        public var databasePath: String?
        /// `--db-password-file`.
        public var databasePasswordFile: String?
        public var sharedSecretFile: String?
        public var productionURL: String?
        public var sandboxURL: String?
        public var concurrency: Int?
        public var products: [String]
        public var caFile: String?
        public var requestTimeoutSeconds: Int?
        public var maxAttempts: Int?
        public var maxResponseBytes: Int?
        /// `--apple-api`: verify-receipt or server-api.
        public var appleAPI: String?
        public var serverAPI = ServerAPISettings.Flags()
        /// `--webhook-url`, `--webhook-secret-file`, `--webhook-concurrency`, `--webhook-timeout`.
        public var webhooks = WebhookSettings.Flags()
        /// `parity` needs both APIs configured whatever `--apple-api` says.
        public var requireBothAPIs = false
        /// `--apps-file`.
        public var appsFile: String?
        /// `--app`, repeated: restrict the command to these apps.
        public var apps: [String] = []
        /// The per-app flags given (their names, for the clash with the apps file).
        public var perAppFlagsGiven: [String] {
            var given: [String] = []
            if appleAPI != nil { given.append("--apple-api") }
            if sharedSecretFile != nil { given.append("--shared-secret-file") }
            if serverAPI.keyFile != nil { given.append("--api-key-file") }
            if serverAPI.keyID != nil { given.append("--api-key-id") }
            if serverAPI.issuerID != nil { given.append("--api-issuer-id") }
            if serverAPI.bundleID != nil { given.append("--bundle-id") }
            if serverAPI.appAppleID != nil { given.append("--app-apple-id") }
            if !products.isEmpty { given.append("--product") }
            if serverAPI.rate != nil { given.append("--api-rate") }
            return given
        }

        public init(
            databasePath: String? = nil, sharedSecretFile: String? = nil, productionURL: String? = nil,
            sandboxURL: String? = nil, concurrency: Int? = nil, products: [String] = [], caFile: String? = nil,
            requestTimeoutSeconds: Int? = nil, maxAttempts: Int? = nil, maxResponseBytes: Int? = nil,
            appleAPI: String? = nil, serverAPI: ServerAPISettings.Flags = ServerAPISettings.Flags(),
            requireBothAPIs: Bool = false, databasePasswordFile: String? = nil, apps: [String] = []
        ) {
            self.apps = apps
            self.databasePasswordFile = databasePasswordFile
            self.appleAPI = appleAPI
            self.serverAPI = serverAPI
            self.requireBothAPIs = requireBothAPIs
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.maxAttempts = maxAttempts
            self.maxResponseBytes = maxResponseBytes
            self.databasePath = databasePath
            self.sharedSecretFile = sharedSecretFile
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.concurrency = concurrency
            self.products = products
            self.caFile = caFile
        }
    }

    /// The database path alone (import and report need no secret).
    public static func databasePath(environment: [String: String], flag: String?) -> String {
        flag ?? nonEmpty(environment["SUBRECON_DB"]) ?? defaultDatabasePath
    }

    /// The database: SUBRECON_DB / --db, with SUBRECON_DB_PASSWORD_FILE / --db-password-file for
    /// PostgreSQL (see `DatabaseLocation.resolve`).
    public static func database(
        environment: [String: String], flag: String?, passwordFileFlag: String?, warnings: inout [String]
    ) throws(ConfigurationError) -> DatabaseLocation {
        try DatabaseLocation.resolve(
            databasePath(environment: environment, flag: flag),
            passwordFile: passwordFileFlag ?? nonEmpty(environment["SUBRECON_DB_PASSWORD_FILE"]), warnings: &warnings)
    }

    public static func resolve(environment: [String: String], flags: Flags) throws(ConfigurationError) -> Settings {
        var warnings: [String] = []
        let appsFile = try AppsFile.resolve(
            environment: environment, flag: flags.appsFile, perAppFlagsGiven: flags.perAppFlagsGiven)
        let database = try database(
            environment: environment, flag: flags.databasePath, passwordFileFlag: flags.databasePasswordFile, warnings: &warnings)
        let apps: [AppSettings]
        if let appsFile {
            apps = try appsFile.apps.map { (app) throws(ConfigurationError) in
                try AppSettings.resolve(app, file: appsFile, environment: environment, flags: flags, warnings: &warnings)
            }
        } else {
            apps = [try singleApp(environment: environment, flags: flags, warnings: &warnings)]
        }
        let webhooks = try WebhookSettings.resolve(
            environment: environment, flags: flags.webhooks, appsFile: appsFile, warnings: &warnings)
        let production = flags.productionURL ?? nonEmpty(environment["SUBRECON_PRODUCTION_URL"])
            ?? VerifyReceiptEndpoints.apple.production
        let sandbox = flags.sandboxURL ?? nonEmpty(environment["SUBRECON_SANDBOX_URL"])
            ?? VerifyReceiptEndpoints.apple.sandbox
        try checkURL(production, setting: "SUBRECON_PRODUCTION_URL / --production-url")
        try checkURL(sandbox, setting: "SUBRECON_SANDBOX_URL / --sandbox-url")

        var concurrency = defaultConcurrency
        if let flag = flags.concurrency {
            concurrency = flag
        } else if let text = nonEmpty(environment["SUBRECON_CONCURRENCY"]) {
            guard let value = Int(text) else {
                throw .invalidNumber(setting: "SUBRECON_CONCURRENCY", value: text, expected: "a whole number from 1 to 1024")
            }
            concurrency = value
        }
        guard (1...1024).contains(concurrency) else {
            throw .invalidNumber(
                setting: "SUBRECON_CONCURRENCY / --concurrency", value: "\(concurrency)", expected: "a whole number from 1 to 1024")
        }

        let caFile = flags.caFile ?? nonEmpty(environment["SUBRECON_CA_FILE"])
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .other("the CA file \(caFile) (SUBRECON_CA_FILE / --ca-file) cannot be read")
        }
        let timeout = try number(
            flags.requestTimeoutSeconds, environment, "SUBRECON_REQUEST_TIMEOUT", "--request-timeout",
            default: defaultRequestTimeoutSeconds, range: 1...600, unit: "seconds")
        let attempts = try number(
            flags.maxAttempts, environment, "SUBRECON_MAX_ATTEMPTS", "--max-attempts", default: 4, range: 1...20,
            unit: "attempts")
        let maxBytes = try number(
            flags.maxResponseBytes, environment, "SUBRECON_MAX_RESPONSE_BYTES", "--max-response-bytes",
            default: defaultMaxResponseBytes, range: 65_536...(1 << 30), unit: "bytes")
        var retryPolicy = RetryPolicy(maxAttempts: attempts)
        if let text = nonEmpty(environment["SUBRECON_RETRY_BASE_DELAY_MS"]), let ms = Int(text), ms >= 0 {
            retryPolicy.baseDelay = .milliseconds(ms)
        }
        var settings = Settings(
            databasePath: databasePath(environment: environment, flag: flags.databasePath), sharedSecret: nil,
            endpoints: VerifyReceiptEndpoints(production: production, sandbox: sandbox), concurrency: concurrency,
            products: [], requestTimeout: .seconds(timeout), caFile: caFile, warnings: warnings,
            retryPolicy: retryPolicy, maxResponseBytes: maxBytes, database: database, apps: apps,
            appsFile: appsFile?.path)
        settings.appFilter = try appFilter(flags.apps, apps: apps.compactMap(\.bundleID))
        settings.webhooks = webhooks
        return settings
    }

    /// `--app` values, each one of the configured apps' bundle IDs.
    static func appFilter(_ given: [String], apps: [String]) throws(ConfigurationError) -> [String] {
        let given = given.map { $0.trimmingCharacters(in: .whitespaces) }
        for bundleID in given where !apps.contains(bundleID) {
            throw .invalidValue(setting: "--app", value: bundleID, validChoices: apps.isEmpty ? ["(no app is named: set SUBRECON_BUNDLE_ID or use an apps file)"] : apps)
        }
        return given
    }

    /// The one app the single-app variables describe, exactly as before the apps file existed.
    static func singleApp(environment: [String: String], flags: Flags, warnings: inout [String])
        throws(ConfigurationError) -> AppSettings
    {
        let api = try ServerAPISettings.api(environment: environment, flag: flags.appleAPI)
        var secret: SharedSecret?
        var serverAPI: ServerAPISettings?
        if api == .verifyReceipt || flags.requireBothAPIs {
            secret = try resolveSecret(environment: environment, flagFile: flags.sharedSecretFile, warnings: &warnings)
        }
        if api == .serverAPI || flags.requireBothAPIs {
            serverAPI = try ServerAPISettings.resolve(environment: environment, flags: flags.serverAPI, warnings: &warnings)
        }
        let bundleID = (flags.serverAPI.bundleID ?? nonEmpty(environment["SUBRECON_BUNDLE_ID"]))?
            .trimmingCharacters(in: .whitespaces)
        let appAppleID = try ServerAPISettings.appAppleID(flag: flags.serverAPI.appAppleID, environment: environment)
        return AppSettings(
            bundleID: bundleID.flatMap { $0.isEmpty ? nil : $0 }, appleAPI: api, sharedSecret: secret,
            serverAPI: serverAPI, products: products(flags: flags.products, environment: environment),
            appAppleID: appAppleID)
    }

    /// A whole-number setting: the flag, else the variable, else the default; checked against `range`.
    static func number(
        _ flag: Int?, _ environment: [String: String], _ variable: String, _ flagName: String, default value: Int,
        range: ClosedRange<Int>, unit: String
    ) throws(ConfigurationError) -> Int {
        let expected = "a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)"
        var result = value
        if let flag {
            result = flag
        } else if let text = nonEmpty(environment[variable]) {
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw .invalidNumber(setting: variable, value: text, expected: expected)
            }
            result = parsed
        }
        guard range.contains(result) else {
            throw .invalidNumber(setting: "\(variable) / \(flagName)", value: "\(result)", expected: expected)
        }
        return result
    }

    static func resolveSecret(environment: [String: String], flagFile: String?, warnings: inout [String])
        throws(ConfigurationError) -> SharedSecret
    {
        let inline = nonEmpty(environment["SUBRECON_SHARED_SECRET"])
        let file = flagFile ?? nonEmpty(environment["SUBRECON_SHARED_SECRET_FILE"])
        switch (inline, file) {
        case (.some, .some): throw .bothSharedSecretSourcesSet
        case (nil, nil): throw .missingSharedSecret
        case (let value?, nil): return SharedSecret(value.trimmingCharacters(in: .whitespacesAndNewlines))
        case (nil, let path?):
            return SharedSecret(
                try SecretFile.firstLine(
                    ofSecretFile: path, what: "the shared secret file", warnings: &warnings,
                    unreadable: { .sharedSecretFileUnreadable(path: path, reason: $0) }, empty: .sharedSecretFileEmpty(path: path)))
        }
    }

    static func checkURL(_ value: String, setting: String) throws(ConfigurationError) {
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else { throw .invalidURL(setting: setting, value: value) }
    }

    /// `--product` flags, else SUBRECON_PRODUCTS (comma-separated); empty: every product.
    static func products(flags: [String], environment: [String: String]) -> Set<String> {
        if !flags.isEmpty {
            return Set(flags.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        guard let list = nonEmpty(environment["SUBRECON_PRODUCTS"]) else { return [] }
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value
    }
}
