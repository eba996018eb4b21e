import ArgumentParser
import SubRecon

/// Options of the commands that talk to Apple (`run`, `user`, `parity`: `VerificationOptions`;
/// `link`, `notifications backfill`, which ask only the App Store Server API: `ServerAPIOptions`).
/// There is no flag for the secret itself, on purpose: it would show in `ps`.
struct AppleOptions<API: AppleAPIUse>: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A file whose first line is the shared secret (SUBRECON_SHARED_SECRET_FILE).", visibility: API.verifyReceipt))
    var sharedSecretFile: String?

    @Option(help: ArgumentHelp("verifyReceipt production URL (SUBRECON_PRODUCTION_URL).", visibility: API.verifyReceipt))
    var productionURL: String?

    @Option(help: ArgumentHelp("verifyReceipt sandbox URL (SUBRECON_SANDBOX_URL).", visibility: API.verifyReceipt))
    var sandboxURL: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "verifyReceipt requests in flight at most, 1-1024 (SUBRECON_CONCURRENCY; default 32).", visibility: API.verifyReceipt))
    var concurrency: Int?

    @Option(help: ArgumentHelp(
        "Extra CA bundle (PEM) for a private verifyReceipt-compatible endpoint (SUBRECON_CA_FILE).",
        visibility: API.verifyReceipt))
    var caFile: String?

    @Option(parsing: .unconditional, help: "Seconds one verifyReceipt exchange may take (SUBRECON_REQUEST_TIMEOUT; default 30).")
    var requestTimeout: Int?

    @Option(parsing: .unconditional, help: "Attempts per receipt per run for transient failures, 1-20 (SUBRECON_MAX_ATTEMPTS; default 4).")
    var maxAttempts: Int?

    @Option(parsing: .unconditional, help: "Refuse answers larger than this many bytes (SUBRECON_MAX_RESPONSE_BYTES; default 20 MiB).")
    var maxResponseBytes: Int?

    @Option(help: "Which Apple API to ask: verify-receipt or server-api (SUBRECON_APPLE_API; default verify-receipt).")
    var appleAPI: String?

    @Option(help: "The In-App Purchase key (.p8) from App Store Connect (SUBRECON_API_KEY_FILE).")
    var apiKeyFile: String?

    @Option(help: "That key's ID (SUBRECON_API_KEY_ID).")
    var apiKeyID: String?

    @Option(help: "The issuer ID from App Store Connect (SUBRECON_API_ISSUER_ID).")
    var apiIssuerID: String?

    @Option(help: "App Store Server API production base URL (SUBRECON_API_URL).")
    var apiURL: String?

    @Option(help: "App Store Server API sandbox base URL (SUBRECON_API_SANDBOX_URL).")
    var apiSandboxURL: String?

    @Option(parsing: .unconditional, help: "Server API requests per second at most, 0 = no limit (SUBRECON_API_RATE; default 40).")
    var apiRate: Double?

    @OptionGroup var app: AppOptions<SignedAnswers>

    @Option(name: .customLong("app"), help: "Only this app's receipts (a bundle ID of the apps file); repeat for several (default: every app).")
    var onlyApps: [String] = []

    func validate() throws {
        if let concurrency, !(1...1024).contains(concurrency) {
            throw ValidationError("--concurrency must be a whole number from 1 to 1024, not \(concurrency)")
        }
    }

    /// The flags as the library's settings take them (the database flags come with the context).
    var flags: Settings.Flags {
        Settings.Flags(
            sharedSecretFile: sharedSecretFile, productionURL: productionURL, sandboxURL: sandboxURL,
            concurrency: concurrency, products: app.products, caFile: caFile, requestTimeoutSeconds: requestTimeout,
            maxAttempts: maxAttempts, maxResponseBytes: maxResponseBytes, appleAPI: appleAPI,
            serverAPI: ServerAPISettings.Flags(
                keyFile: apiKeyFile, keyID: apiKeyID, issuerID: apiIssuerID, bundleID: app.bundleID, productionURL: apiURL,
                sandboxURL: apiSandboxURL, rootCAFile: app.appleRootCAFile, rate: apiRate, appAppleID: app.appAppleID),
            apps: onlyApps)
    }
}

/// Which Apple APIs a command asks, so its help lists only the options it uses.
protocol AppleAPIUse {
    /// The verifyReceipt-only options (the secret, its URLs, its concurrency and CA bundle):
    /// hidden where the command never asks verifyReceipt (still accepted, so a shared set of
    /// flags in a script does not break).
    static var verifyReceipt: ArgumentVisibility { get }
}

/// `run`, `user`, `parity`: either API, as SUBRECON_APPLE_API says.
enum EitherAPI: AppleAPIUse {
    static let verifyReceipt = ArgumentVisibility.default
}

/// `link`, `notifications backfill`: the App Store Server API only.
enum ServerAPIOnly: AppleAPIUse {
    static let verifyReceipt = ArgumentVisibility.hidden
}

typealias VerificationOptions = AppleOptions<EitherAPI>
typealias ServerAPIOptions = AppleOptions<ServerAPIOnly>
