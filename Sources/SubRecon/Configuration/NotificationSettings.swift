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

    /// From SUBRECON_BUNDLE_ID, SUBRECON_APPLE_ROOT_CA_FILE, SUBRECON_APP_APPLE_ID and
    /// SUBRECON_PRODUCTS (flags first).
    public static func resolve(
        environment: [String: String], bundleIDFlag: String? = nil, rootCAFileFlag: String? = nil,
        appAppleIDFlag: Int64? = nil, productsFlag: [String] = []
    ) throws(ConfigurationError) -> NotificationSettings {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? Settings.nonEmpty(environment[variable]))?.trimmingCharacters(in: .whitespaces)
        }
        guard let bundleID = value(bundleIDFlag, "SUBRECON_BUNDLE_ID"), !bundleID.isEmpty else {
            throw .other(
                "notifications need SUBRECON_BUNDLE_ID / --bundle-id (the app's bundle id: a notification for another app is refused)")
        }
        return NotificationSettings(
            bundleID: bundleID,
            verifier: try ServerAPISettings.rootVerifier(file: value(rootCAFileFlag, "SUBRECON_APPLE_ROOT_CA_FILE")),
            appAppleID: try ServerAPISettings.appAppleID(flag: appAppleIDFlag, environment: environment),
            products: Settings.products(flags: productsFlag, environment: environment))
    }
}
