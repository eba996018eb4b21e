import ArgumentParser
import SubRecon

/// The app whose signed data a command checks: its bundle ID, the roots signatures chain to, its
/// Apple ID and the products it applies. One group for every command that verifies signed data;
/// `Checked` names, in the help, what is checked (a run's signed answers, or notifications).
struct AppOptions<Checked: CheckedData>: ParsableArguments {
    @Option(help: ArgumentHelp(Checked.wording.bundleID))
    var bundleID: String?

    @Option(help: ArgumentHelp(Checked.wording.appleRootCAFile))
    var appleRootCAFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(Checked.wording.appAppleID))
    var appAppleID: Int64?

    @Option(name: .customLong("product"), help: ArgumentHelp(Checked.wording.products))
    var products: [String] = []

    /// The flags as the library's settings take them.
    var flags: NotificationSettings.Flags {
        NotificationSettings.Flags(bundleID: bundleID, rootCAFile: appleRootCAFile, appAppleID: appAppleID, products: products)
    }
}

/// What verifying notifications needs (no API key: `serve` and `import` never call Apple).
typealias NotificationOptions = AppOptions<Notifications>

/// What `AppOptions` check, as their help says it.
protocol CheckedData {
    static var wording: AppOptionsWording { get }
}

struct AppOptionsWording {
    var bundleID: String
    var appleRootCAFile: String
    var appAppleID: String
    var products: String
}

/// The signed answers of a run (`run`, `user`, `parity`, `notifications backfill`).
enum SignedAnswers: CheckedData {
    static let wording = AppOptionsWording(
        bundleID: "The app's bundle ID; signed data for any other app is refused (SUBRECON_BUNDLE_ID).",
        appleRootCAFile: "PEM root certificate(s) signed data must chain to (SUBRECON_APPLE_ROOT_CA_FILE; default Apple Root CA - G3).",
        appAppleID: "The app's Apple ID, checked on production answers when set (SUBRECON_APP_APPLE_ID).",
        products: "A product ID to reconcile; repeat for each product of the group (SUBRECON_PRODUCTS).")
}

/// Notifications (`notifications serve`, `notifications import`).
enum Notifications: CheckedData {
    static let wording = AppOptionsWording(
        bundleID: "The app's bundle ID; notifications for other apps are refused (SUBRECON_BUNDLE_ID).",
        appleRootCAFile: "Root certificate (PEM) signatures must chain to (SUBRECON_APPLE_ROOT_CA_FILE; default Apple Root CA - G3).",
        appAppleID: "The app's Apple ID, checked on production notifications when set (SUBRECON_APP_APPLE_ID).",
        products: "A product ID to apply; repeat for each (SUBRECON_PRODUCTS; default all).")
}
