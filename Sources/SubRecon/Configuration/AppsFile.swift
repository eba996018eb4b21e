import AppleSignedData
import Foundation
import SubReconModel

/// `SUBRECON_APPS_FILE` / `--apps-file`: several apps in one deployment, one object per app with
/// its bundle ID and the settings Apple scopes per app, under the single-app variables' names
/// lower-cased without the prefix. Parsed and checked whole before anything else happens; the
/// secret files it names are read later, by the commands that talk to Apple.
public struct AppsFile: Sendable, Equatable {
    /// One app as the file describes it.
    public struct App: Sendable, Equatable {
        public var bundleID: String
        public var appleAPI: AppleAPI
        public var sharedSecretFile: String?
        public var apiKeyFile: String?
        public var apiKeyID: String?
        public var apiIssuerID: String?
        public var appAppleID: Int64?
        public var products: [String]
        public var apiRate: Double?
        /// Where the app's events are POSTed (checked: https, or http to loopback); with `webhookSecretFile`.
        public var webhookURL: String?
        /// The file of the app's webhook signing secrets (read by `WebhookSettings`); with `webhookURL`.
        public var webhookSecretFile: String?

        public init(
            bundleID: String, appleAPI: AppleAPI = .verifyReceipt, sharedSecretFile: String? = nil,
            apiKeyFile: String? = nil, apiKeyID: String? = nil, apiIssuerID: String? = nil, appAppleID: Int64? = nil,
            products: [String] = [], apiRate: Double? = nil, webhookURL: String? = nil, webhookSecretFile: String? = nil
        ) {
            self.webhookURL = webhookURL
            self.webhookSecretFile = webhookSecretFile
            self.bundleID = bundleID
            self.appleAPI = appleAPI
            self.sharedSecretFile = sharedSecretFile
            self.apiKeyFile = apiKeyFile
            self.apiKeyID = apiKeyID
            self.apiIssuerID = apiIssuerID
            self.appAppleID = appAppleID
            self.products = products
            self.apiRate = apiRate
        }
    }

    public var path: String
    public var apps: [App]

    public var bundleIDs: [String] { apps.map(\.bundleID) }

    /// The keys an app object may have.
    static let keys: [String] = [
        "bundle_id", "apple_api", "shared_secret_file", "api_key_file", "api_key_id", "api_issuer_id", "app_apple_id",
        "products", "api_rate", "webhook_url", "webhook_secret_file",
    ]

    /// The per-app variables: set together with the apps file, they are a configuration error
    /// (there would be doubt which app they describe).
    public static let clashingVariables: [String] = [
        "SUBRECON_APPLE_API", "SUBRECON_SHARED_SECRET", "SUBRECON_SHARED_SECRET_FILE", "SUBRECON_API_KEY_FILE",
        "SUBRECON_API_KEY_ID", "SUBRECON_API_ISSUER_ID", "SUBRECON_BUNDLE_ID", "SUBRECON_APP_APPLE_ID",
        "SUBRECON_PRODUCTS", "SUBRECON_API_RATE", "SUBRECON_WEBHOOK_URL", "SUBRECON_WEBHOOK_SECRET_FILE",
    ]

    /// `SUBRECON_APPS_FILE` / `--apps-file`, loaded and checked; nil when neither is set.
    /// `perAppSettingsGiven` names the per-app flags given on the command line.
    public static func resolve(
        environment: [String: String], flag: String?, perAppFlagsGiven: [String] = []
    ) throws(ConfigurationError) -> AppsFile? {
        guard let path = flag ?? Settings.nonEmpty(environment["SUBRECON_APPS_FILE"]) else { return nil }
        let clashing = clashingVariables.filter { Settings.nonEmpty(environment[$0]) != nil } + perAppFlagsGiven
        if !clashing.isEmpty {
            throw .other(
                "the apps file \(path) (SUBRECON_APPS_FILE / --apps-file) describes every app, but "
                    + clashing.joined(separator: ", ")
                    + " \(clashing.count == 1 ? "is" : "are") set too: put each app's settings in the file and unset "
                    + (clashing.count == 1 ? "it" : "them") + ", so there is no doubt which app a setting is for")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw .other("cannot read the apps file \(path) (SUBRECON_APPS_FILE / --apps-file): \(reason)")
        }
        return try parse(data, path: path)
    }

    /// The file's apps, or the first problem found, naming the app (by its bundle ID, else its
    /// position) and the key. Read strictly: a key given twice is an error, not a silent choice.
    public static func parse(_ data: Data, path: String) throws(ConfigurationError) -> AppsFile {
        func problem(_ text: String) -> ConfigurationError { .other("the apps file \(path): \(text)") }
        let root: JSONValue
        do {
            root = try StrictJSON.parse(Array(data))
        } catch .duplicateKey(let key) {
            throw problem(#"names "\#(key)" twice in one object; give each key once"#)
        } catch .tooDeep {
            throw problem("nests lists and objects too deeply")
        } catch {
            throw problem(#"is not valid JSON; the form is {"apps": [{"bundle_id": "com.example.app", ...}, ...]}"#)
        }
        guard case .object(let object) = root else {
            throw problem(#"must be a JSON object {"apps": [...]}, not \#(kind(root))"#)
        }
        if let unknown = object.keys.sorted().first(where: { $0 != "apps" }) {
            throw problem(#"unknown key "\#(unknown)" at the top level (the only key is "apps")"#)
        }
        guard let list = object["apps"] else { throw problem(#"has no "apps" list"#) }
        guard case .array(let entries) = list else { throw problem(#""apps" must be a list of objects, not \#(kind(list))"#) }
        guard !entries.isEmpty else { throw problem(#""apps" is empty: list at least one app"#) }

        var apps: [App] = []
        var seen: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            guard case .object(let fields) = entry else {
                throw problem("app \(index + 1) must be a JSON object, not \(kind(entry))")
            }
            let bundleID = fields["bundle_id"]?.stringValue?.trimmingCharacters(in: .whitespaces)
            let name = bundleID.map { "app \(index + 1) (\($0))" } ?? "app \(index + 1)"
            func fail(_ text: String) -> ConfigurationError { problem("\(name): \(text)") }
            if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
                throw fail(#"unknown key "\#(unknown)" (known keys: \#(keys.joined(separator: ", ")))"#)
            }
            guard let given = fields["bundle_id"] else { throw fail(#""bundle_id" is missing (every app needs its bundle ID)"#) }
            guard let bundleID, !bundleID.isEmpty else { throw fail(#""bundle_id" must be a non-empty string, not \#(text(given))"#) }
            guard bundleID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { throw fail(#""bundle_id" may hold only letters, digits, ".", "-" and "_""#) }
            if let first = seen[bundleID] {
                throw fail("the bundle ID is listed twice (also app \(first + 1)); list each app once")
            }
            seen[bundleID] = index

            func string(_ key: String) throws(ConfigurationError) -> String? {
                guard let value = fields[key] else { return nil }
                guard let text = value.stringValue else { throw fail(#""\#(key)" must be a string, not \#(kind(value))"#) }
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { throw fail(#""\#(key)" is empty"#) }
                return trimmed
            }
            var app = App(bundleID: bundleID)
            if let api = try string("apple_api") {
                guard let parsed = AppleAPI(rawValue: api) else {
                    throw fail(#""apple_api" must be one of \#(AppleAPI.allCases.map(\.rawValue).joined(separator: ", ")), not "\#(api)""#)
                }
                app.appleAPI = parsed
            }
            app.sharedSecretFile = try string("shared_secret_file")
            app.apiKeyFile = try string("api_key_file")
            app.apiKeyID = try string("api_key_id")
            app.apiIssuerID = try string("api_issuer_id")
            if let value = fields["app_apple_id"] {
                guard let id = value.int64Value, id > 0 else {
                    throw fail(#""app_apple_id" must be the app's Apple ID, a positive JSON integer, not \#(text(value))"#)
                }
                app.appAppleID = id
            }
            if let value = fields["products"] {
                guard case .array(let items) = value else {
                    throw fail(#""products" must be a list of product IDs, not \#(kind(value))"#)
                }
                app.products = try items.map { (item) throws(ConfigurationError) -> String in
                    guard let product = item.stringValue?.trimmingCharacters(in: .whitespaces), !product.isEmpty else {
                        throw fail(#""products" must hold non-empty strings, not \#(text(item))"#)
                    }
                    return product
                }
            }
            if let value = fields["api_rate"] {
                guard case .number(let literal) = value, let rate = Double(literal), rate.isFinite, (0...10_000).contains(rate)
                else {
                    throw fail(#""api_rate" must be requests per second, a number from 0 to 10000 (0 = no limit), not \#(text(value))"#)
                }
                app.apiRate = rate
            }
            app.webhookURL = try string("webhook_url")
            app.webhookSecretFile = try string("webhook_secret_file")
            try checkWebhook(app, fail: fail)
            try checkCredentials(app, fail: fail)
            apps.append(app)
        }
        return AppsFile(path: path, apps: apps)
    }

    /// Each app has the credentials its `apple_api` needs (the files are read later).
    static func checkCredentials(_ app: App, fail: (String) -> ConfigurationError) throws(ConfigurationError) {
        switch app.appleAPI {
        case .verifyReceipt:
            guard app.sharedSecretFile != nil else {
                throw fail(#"apple_api "verify-receipt" needs "shared_secret_file" (a file whose first line is the app's shared secret)"#)
            }
        case .serverAPI:
            let missing = ["api_key_file", "api_key_id", "api_issuer_id"].filter { key in
                switch key {
                case "api_key_file": app.apiKeyFile == nil
                case "api_key_id": app.apiKeyID == nil
                default: app.apiIssuerID == nil
                }
            }
            guard missing.isEmpty else {
                throw fail(
                    #"apple_api "server-api" needs "# + missing.map { "\"\($0)\"" }.joined(separator: ", ")
                        + " (the In-App Purchase key file from App Store Connect, its key ID and the issuer ID)")
            }
        }
    }

    /// The app's webhook: both keys or neither, and a URL events may go to (the secret file is read
    /// later, by `WebhookSettings`).
    static func checkWebhook(_ app: App, fail: (String) -> ConfigurationError) throws(ConfigurationError) {
        switch (app.webhookURL, app.webhookSecretFile) {
        case (let url?, _?):
            do {
                _ = try WebhookEndpointURL(url, setting: #""webhook_url""#)
            } catch {
                throw fail(error.description)
            }
        case (_?, nil):
            throw fail(#""webhook_url" needs "webhook_secret_file" (a file of whsec_ signing secrets, one per line): events are always signed"#)
        case (nil, _?):
            throw fail(#""webhook_secret_file" needs "webhook_url" (where the app's events are POSTed)"#)
        case (nil, nil):
            break
        }
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .number(let literal): literal
        case .bool(let flag): "\(flag)"
        default: kind(value)
        }
    }
}
