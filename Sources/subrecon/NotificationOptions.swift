import ArgumentParser
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// What verifying notifications needs (no API key: `serve` and `import` never call Apple).
struct NotificationOptions: ParsableArguments {
    @Option(help: "The app's bundle ID; notifications for other apps are refused (SUBRECON_BUNDLE_ID).")
    var bundleID: String?

    @Option(help: "Root certificate (PEM) signatures must chain to (SUBRECON_APPLE_ROOT_CA_FILE; default Apple Root CA - G3).")
    var appleRootCAFile: String?

    @Option(help: "The app's Apple ID, checked on production notifications when set (SUBRECON_APP_APPLE_ID).")
    var appAppleID: Int64?

    @Option(name: .customLong("product"), help: "A product ID to apply; repeat for each (SUBRECON_PRODUCTS; default all).")
    var products: [String] = []

    /// The flags as the library's settings take them.
    var flags: NotificationSettings.Flags {
        NotificationSettings.Flags(bundleID: bundleID, rootCAFile: appleRootCAFile, appAppleID: appAppleID, products: products)
    }
}
