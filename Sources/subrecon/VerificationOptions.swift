import ArgumentParser
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Options of the commands that talk to Apple (`run`, `user`). There is no flag for the secret
/// itself, on purpose: it would show in `ps`.
struct VerificationOptions: ParsableArguments {
    @Option(help: "A file whose first line is the shared secret (SUBRECON_SHARED_SECRET_FILE).")
    var sharedSecretFile: String?

    @Option(help: "verifyReceipt production URL (SUBRECON_PRODUCTION_URL).")
    var productionURL: String?

    @Option(help: "verifyReceipt sandbox URL (SUBRECON_SANDBOX_URL).")
    var sandboxURL: String?

    @Option(parsing: .unconditional, help: "verifyReceipt requests in flight at most, 1-1024 (SUBRECON_CONCURRENCY; default 32).")
    var concurrency: Int?

    @Option(help: "Extra CA bundle (PEM) for a private verifyReceipt-compatible endpoint (SUBRECON_CA_FILE).")
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
