import AppleSignedData
import SubReconAppStore
import SubReconModel
import SubReconStore

/// What verifying App Store Server Notifications needs: the app's bundle id, the root its
/// signatures chain to, and (optionally) its Apple ID. No API key: the receiver and
/// `notifications import` never call Apple (`notifications backfill` does, with ServerAPISettings).
public struct NotificationSettings: Sendable {
    public var bundleID: String
    public var verifier: SignedDataVerifier
    public var appAppleID: Int64?
    /// SUBRECON_PRODUCTS: notifications about other products are stored as `ignored`.
    public var products: Set<String>

    public init(bundleID: String, verifier: SignedDataVerifier, appAppleID: Int64? = nil, products: Set<String> = []) {
        self.bundleID = bundleID
        self.verifier = verifier
        self.appAppleID = appAppleID
        self.products = products
    }

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

        public init(bundleID: String? = nil, rootCAFile: String? = nil, appAppleID: Int64? = nil, products: [String] = []) {
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
        serverAPI.map {
            NotificationSettings(bundleID: $0.bundleID, verifier: $0.verifier, appAppleID: $0.appAppleID, products: products)
        }
    }
}
