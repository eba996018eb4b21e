import Foundation
import SubReconModel
import SubReconStore

/// Where and how events are delivered, resolved and loaded before anything else happens (a bad
/// setting is exit 2, naming it, never quoting a secret): per app an optional endpoint (the
/// single-app SUBRECON_WEBHOOK_URL / SUBRECON_WEBHOOK_SECRET_FILE, or the apps file's
/// `webhook_url` / `webhook_secret_file`), and the global concurrency, timeout and retry schedule.
public struct WebhookSettings: Sendable {
    /// Subscriptions being delivered at once (requests in flight at most).
    public var concurrency: Int
    /// What one delivery attempt may take, all of it.
    public var timeout: Duration
    public var schedule: WebhookRetrySchedule
    /// The apps file's endpoints by bundle ID; empty in a single-app deployment.
    public var endpointsByBundleID: [String: WebhookEndpoint]
    /// The single-app deployment's endpoint, for any app.
    public var singleEndpoint: WebhookEndpoint?

    public static let defaultConcurrency = 16
    public static let concurrencyRange = 1...256
    public static let defaultTimeoutSeconds = 10.0

    /// Nothing configured: events are recorded and never sent.
    public static let unconfigured = WebhookSettings(
        concurrency: defaultConcurrency, timeout: .seconds(defaultTimeoutSeconds), schedule: .standard)

    public init(
        concurrency: Int, timeout: Duration, schedule: WebhookRetrySchedule,
        endpointsByBundleID: [String: WebhookEndpoint] = [:], singleEndpoint: WebhookEndpoint? = nil
    ) {
        self.concurrency = concurrency
        self.timeout = timeout
        self.schedule = schedule
        self.endpointsByBundleID = endpointsByBundleID
        self.singleEndpoint = singleEndpoint
    }

    /// The endpoint of the app `bundleID` names (with an apps file), or the one endpoint of a
    /// single-app deployment whatever the app; nil when that app's events are not sent.
    public func endpoint(for bundleID: String?) -> WebhookEndpoint? {
        if let singleEndpoint { return singleEndpoint }
        return bundleID.flatMap { endpointsByBundleID[$0] }
    }

    /// Whether any app has an endpoint.
    public var isConfigured: Bool { singleEndpoint != nil || !endpointsByBundleID.isEmpty }

    /// The flags (`webhooks deliver`, `serve`); nil when not given. Each wins over its variable.
    public struct Flags: Sendable {
        /// `--webhook-url`
        public var url: String?
        /// `--webhook-secret-file`
        public var secretFile: String?
        /// `--webhook-concurrency`
        public var concurrency: Int?
        /// `--webhook-timeout`, seconds
        public var timeoutSeconds: Double?

        public init(url: String? = nil, secretFile: String? = nil, concurrency: Int? = nil, timeoutSeconds: Double? = nil) {
            self.url = url
            self.secretFile = secretFile
            self.concurrency = concurrency
            self.timeoutSeconds = timeoutSeconds
        }
    }

    static let urlSetting = "SUBRECON_WEBHOOK_URL / --webhook-url"
    static let secretFileSetting = "SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file"

    /// From the flags, the variables and `appsFile` (already parsed and checked; nil without one).
    /// The secret files are read here; a file group or others can read adds a warning.
    public static func resolve(
        environment: [String: String], flags: Flags = Flags(), appsFile: AppsFile?, warnings: inout [String]
    ) throws(ConfigurationError) -> WebhookSettings {
        var settings = WebhookSettings.unconfigured
        settings.concurrency = try concurrency(flags.concurrency, environment)
        settings.timeout = try timeout(flags.timeoutSeconds, environment)
        settings.schedule = try WebhookRetrySchedule.parse(environment[WebhookRetrySchedule.variable])
        if let appsFile {
            // The variables clash in AppsFile.resolve; the flags are checked here, for the commands that have them.
            let given = [("--webhook-url", flags.url), ("--webhook-secret-file", flags.secretFile)].filter { $0.1 != nil }.map(\.0)
            guard given.isEmpty else {
                throw .other(
                    "the apps file \(appsFile.path) (SUBRECON_APPS_FILE / --apps-file) gives each app its webhook "
                        + "(\"webhook_url\", \"webhook_secret_file\"), but \(given.joined(separator: " and ")) "
                        + "\(given.count == 1 ? "is" : "are") given too: set them in the file, so there is no doubt which app they are for")
            }
            for app in appsFile.apps {
                guard let url = app.webhookURL, let file = app.webhookSecretFile else { continue }
                let setting = "\"webhook_secret_file\" of app \(app.bundleID) in the apps file \(appsFile.path)"
                settings.endpointsByBundleID[app.bundleID] = WebhookEndpoint(
                    url: url, secrets: try secrets(file, setting: setting, warnings: &warnings), secretFile: file)
            }
            return settings
        }
        let url = flags.url ?? Settings.nonEmpty(environment["SUBRECON_WEBHOOK_URL"])
        let file = flags.secretFile ?? Settings.nonEmpty(environment["SUBRECON_WEBHOOK_SECRET_FILE"])
        switch (url, file) {
        case (let url?, let file?):
            let url = url.trimmingCharacters(in: .whitespaces)
            _ = try WebhookEndpointURL(url, setting: urlSetting)
            settings.singleEndpoint = WebhookEndpoint(
                url: url, secrets: try secrets(file, setting: secretFileSetting, warnings: &warnings), secretFile: file)
        case (_?, nil):
            throw .other(
                "\(urlSetting) is set but \(secretFileSetting) is not: events are always signed; "
                    + "give a file of whsec_ secrets, one per line (`subrecon webhooks secret` makes one)")
        case (nil, _?):
            throw .other("\(secretFileSetting) is set but \(urlSetting) is not: say where the events are POSTed")
        case (nil, nil):
            break
        }
        return settings
    }

    /// The secrets of the file at `path`, one per non-empty line, in file order.
    static func secrets(_ path: String, setting: String, warnings: inout [String]) throws(ConfigurationError) -> [WebhookSecret] {
        let contents: String
        do {
            contents = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not UTF-8" : "no such file"
            throw .other("cannot read the webhook secret file \(path) (\(setting)): \(reason)")
        }
        let secrets = try WebhookSecret.parseFile(contents: contents, path: path, setting: setting)
        if let warning = SecretFile.readableByOthersWarning(path, what: "the webhook secret file") { warnings.append(warning) }
        return secrets
    }

    static func concurrency(_ flag: Int?, _ environment: [String: String]) throws(ConfigurationError) -> Int {
        try Settings.number(
            flag, environment, "SUBRECON_WEBHOOK_CONCURRENCY", "--webhook-concurrency", default: defaultConcurrency,
            range: concurrencyRange, unit: "subscriptions")
    }

    static func timeout(_ flag: Double?, _ environment: [String: String]) throws(ConfigurationError) -> Duration {
        let expected = "a positive number of seconds, at most 86400 (default \(Int(defaultTimeoutSeconds)))"
        var seconds = defaultTimeoutSeconds
        if let flag {
            seconds = flag
        } else if let text = Settings.nonEmpty(environment["SUBRECON_WEBHOOK_TIMEOUT"]) {
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw .invalidNumber(setting: "SUBRECON_WEBHOOK_TIMEOUT", value: text, expected: expected)
            }
            seconds = parsed
        }
        // A day at most: longer is a typo, and it keeps the Duration arithmetic far from overflow.
        guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw .invalidNumber(setting: "SUBRECON_WEBHOOK_TIMEOUT / --webhook-timeout", value: "\(seconds)", expected: expected)
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
