import AppleSignedData
import Foundation
import SubReconModel

/// What verifying App Store Server Notifications needs: the app's bundle id, the root its
/// signatures chain to, and (optionally) its Apple ID. No API key: the receiver and
/// `notifications import` never call Apple (`notifications backfill` does, with ServerAPISettings).
public struct NotificationSettings: Sendable {
    /// One app whose notifications are taken: its bundle ID, Apple ID and products.
    public struct App: Sendable, Equatable {
        public var bundleID: String
        public var appAppleID: Int64?
        /// SUBRECON_PRODUCTS / the app's `products`: notifications about other products are stored as `ignored`.
        public var products: Set<String>

        public init(bundleID: String, appAppleID: Int64? = nil, products: Set<String> = []) {
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.products = products
        }
    }

    /// Every configured app; a notification's verified payload selects one by its bundle ID.
    public var apps: [App]
    public var verifier: SignedDataVerifier
    /// The first app's (the only one without an apps file).
    public var bundleID: String { apps[0].bundleID }
    public var appAppleID: Int64? { apps[0].appAppleID }
    public var products: Set<String> { apps[0].products }

    public init(bundleID: String, verifier: SignedDataVerifier, appAppleID: Int64? = nil, products: Set<String> = []) {
        self.init(apps: [App(bundleID: bundleID, appAppleID: appAppleID, products: products)], verifier: verifier)
    }

    public init(apps: [App], verifier: SignedDataVerifier) {
        precondition(!apps.isEmpty, "notifications are taken for at least one app")
        self.apps = apps
        self.verifier = verifier
    }

    /// The app `bundleID` names.
    public func app(_ bundleID: String?) -> App? { apps.first { $0.bundleID == bundleID } }

    /// The flags naming what verifying needs, shared by every command that verifies signed data
    /// (`notifications serve|import`, and `run`, `user`, `parity`, `notifications backfill` with
    /// the Server API); nil or empty when not given.
    public struct Flags: Sendable {
        /// `--bundle-id`
        public var bundleID: String?
        /// `--apple-root-ca-file`
        public var rootCAFile: String?
        /// `--app-apple-id`
        public var appAppleID: Int64?
        /// `--product`, repeated
        public var products: [String]
        /// `--apps-file`
        public var appsFile: String?

        public init(
            bundleID: String? = nil, rootCAFile: String? = nil, appAppleID: Int64? = nil, products: [String] = [],
            appsFile: String? = nil
        ) {
            self.appsFile = appsFile
            self.bundleID = bundleID
            self.rootCAFile = rootCAFile
            self.appAppleID = appAppleID
            self.products = products
        }
    }

    /// From SUBRECON_BUNDLE_ID, SUBRECON_APPLE_ROOT_CA_FILE, SUBRECON_APP_APPLE_ID and
    /// SUBRECON_PRODUCTS (flags first).
    public static func resolve(environment: [String: String], flags: Flags = Flags()) throws(ConfigurationError)
        -> NotificationSettings
    {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? Settings.nonEmpty(environment[variable]))?.trimmingCharacters(in: .whitespaces)
        }
        var perAppFlags: [String] = []
        if flags.bundleID != nil { perAppFlags.append("--bundle-id") }
        if flags.appAppleID != nil { perAppFlags.append("--app-apple-id") }
        if !flags.products.isEmpty { perAppFlags.append("--product") }
        if let file = try AppsFile.resolve(environment: environment, flag: flags.appsFile, perAppFlagsGiven: perAppFlags) {
            return NotificationSettings(
                apps: file.apps.map { App(bundleID: $0.bundleID, appAppleID: $0.appAppleID, products: Set($0.products)) },
                verifier: try ServerAPISettings.rootVerifier(file: value(flags.rootCAFile, "SUBRECON_APPLE_ROOT_CA_FILE")))
        }
        guard let bundleID = value(flags.bundleID, "SUBRECON_BUNDLE_ID"), !bundleID.isEmpty else {
            throw .other(
                "notifications need SUBRECON_BUNDLE_ID / --bundle-id (the app's bundle id: a notification for another app is refused)")
        }
        return NotificationSettings(
            bundleID: bundleID,
            verifier: try ServerAPISettings.rootVerifier(file: value(flags.rootCAFile, "SUBRECON_APPLE_ROOT_CA_FILE")),
            appAppleID: try ServerAPISettings.appAppleID(flag: flags.appAppleID, environment: environment),
            products: Settings.products(flags: flags.products, environment: environment))
    }
}

extension Settings {
    /// What verifying notifications needs, as the Server API settings already resolved it (the
    /// same bundle ID, roots, app ID and products); nil without the Server API.
    public var notifications: NotificationSettings? {
        let apps = self.apps.compactMap { app in
            app.serverAPI.map { NotificationSettings.App(bundleID: $0.bundleID, appAppleID: $0.appAppleID, products: app.products) }
        }
        guard let first = self.apps.compactMap(\.serverAPI).first, !apps.isEmpty else { return nil }
        return NotificationSettings(apps: apps, verifier: first.verifier)
    }
}
