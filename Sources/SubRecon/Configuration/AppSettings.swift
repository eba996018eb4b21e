import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// One app's settings, resolved and loaded: what Apple scopes per app (its credentials, which
/// API it is asked through, its products, its Apple ID and its Server API rate budget).
public struct AppSettings: Sendable {
    /// The app's bundle ID; nil only for the one app of a single-app deployment that names none
    /// (verifyReceipt without SUBRECON_BUNDLE_ID).
    public var bundleID: String?
    public var appleAPI: AppleAPI
    /// verifyReceipt's secret; nil in server-api mode when none is configured.
    public var sharedSecret: SharedSecret?
    /// The App Store Server API's settings (its key, endpoints, roots, rate and Apple ID); set in
    /// server-api mode (and for `parity`).
    public var serverAPI: ServerAPISettings?
    /// Products to reconcile; empty means every auto-renewable product found.
    public var products: Set<String>
    /// The app's Apple ID, checked on production signed data when set.
    public var appAppleID: Int64?

    public init(
        bundleID: String?, appleAPI: AppleAPI, sharedSecret: SharedSecret?, serverAPI: ServerAPISettings?,
        products: Set<String>, appAppleID: Int64? = nil
    ) {
        self.appAppleID = appAppleID ?? serverAPI?.appAppleID
        self.bundleID = bundleID
        self.appleAPI = appleAPI
        self.sharedSecret = sharedSecret
        self.serverAPI = serverAPI
        self.products = products
    }

    /// How messages name the app.
    public var name: String { bundleID ?? "the app" }

    /// One app of the apps file with its files read: the secret files, the key, and the global
    /// Server API settings (URLs, roots) every app shares.
    static func resolve(
        _ app: AppsFile.App, file: AppsFile, environment: [String: String], flags: Settings.Flags,
        warnings: inout [String]
    ) throws(ConfigurationError) -> AppSettings {
        func inApp(_ error: ConfigurationError) -> ConfigurationError {
            .other("the apps file \(file.path): app \(app.bundleID): \(error.description)")
        }
        var secret: SharedSecret?
        var serverAPI: ServerAPISettings?
        if app.appleAPI == .verifyReceipt || flags.requireBothAPIs {
            guard let path = app.sharedSecretFile else {
                throw inApp(.other(#"has no "shared_secret_file"; `parity` asks both APIs and needs it"#))
            }
            do {
                secret = SharedSecret(
                    try SecretFile.firstLine(
                        ofSecretFile: path, what: "the shared secret file of \(app.bundleID)", warnings: &warnings,
                        unreadable: { .sharedSecretFileUnreadable(path: path, reason: $0) },
                        empty: .sharedSecretFileEmpty(path: path)))
            } catch {
                throw inApp(error)
            }
        }
        if app.appleAPI == .serverAPI || flags.requireBothAPIs {
            guard app.apiKeyFile != nil, app.apiKeyID != nil, app.apiIssuerID != nil else {
                throw inApp(.other(#"has no "api_key_file", "api_key_id" and "api_issuer_id"; `parity` asks both APIs and needs them"#))
            }
            // The app's own values stand in for the single-app variables; URLs and roots stay global.
            var appEnvironment = environment
            appEnvironment["SUBRECON_API_KEY_FILE"] = app.apiKeyFile
            appEnvironment["SUBRECON_API_KEY_ID"] = app.apiKeyID
            appEnvironment["SUBRECON_API_ISSUER_ID"] = app.apiIssuerID
            appEnvironment["SUBRECON_BUNDLE_ID"] = app.bundleID
            appEnvironment["SUBRECON_API_RATE"] = app.apiRate.map { "\($0)" }
            appEnvironment["SUBRECON_APP_APPLE_ID"] = app.appAppleID.map { "\($0)" }
            var appFlags = flags.serverAPI
            (appFlags.keyFile, appFlags.keyID, appFlags.issuerID, appFlags.bundleID) = (nil, nil, nil, nil)
            (appFlags.rate, appFlags.appAppleID) = (nil, nil)
            do {
                serverAPI = try ServerAPISettings.resolve(environment: appEnvironment, flags: appFlags, warnings: &warnings)
            } catch {
                throw inApp(error)
            }
        }
        return AppSettings(
            bundleID: app.bundleID, appleAPI: app.appleAPI, sharedSecret: secret, serverAPI: serverAPI,
            products: Set(app.products), appAppleID: app.appAppleID)
    }
}
