import AppStoreSimulator
import ArgumentParser
import SubReconDemo

/// `subrecon simulator`: the fake App Store (verifyReceipt and the Server API) on its own.
struct SimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulator",
        abstract: "Run the built-in App Store simulator alone (verifyReceipt and App Store Server API, loopback only).",
        discussion: """
            Serves POST /verifyReceipt (production) and /sandbox/verifyReceipt (sandbox), and the \
            App Store Server API under /inApps/... (production) and /sandbox/inApps/... (sandbox), \
            on 127.0.0.1. With a shared secret file, other passwords answer 21004. Server API \
            answers are signed with a certificate chain made at start (--write-root-ca writes its \
            root for SUBRECON_APPLE_ROOT_CA_FILE); with --api-key-file only JWTs signed by that key \
            are accepted. The Server API knows the accounts of receipts it was shown: sample \
            receipts it wrote, receipts verified through verifyReceipt, or receipt data POSTed to \
            /simulator/accounts (one per line). --write-notifications writes the signed \
            notifications (V2) of the sample receipts' accounts as JSON Lines for \
            'subrecon notifications import'; POST /inApps/v1/notifications/history serves them. \
            GET /v1/salesReports serves App Store Connect's daily Summary Sales Report (gzip) of \
            the accounts it knows, for --vendor-number; with --asc-key-file only JWTs signed by \
            that team key are accepted. Request a Test Notification POSTs a signed TEST \
            notification to --notification-url. docs/simulator.md lists every endpoint and how \
            to point Apple's App Store Server Library at the simulator.

            Example:
              subrecon simulator --port 8080 --latency-ms 100 \\
                  --write-root-ca /tmp/sim-root.pem &
              SUBRECON_PRODUCTION_URL=http://127.0.0.1:8080/verifyReceipt \\
              SUBRECON_SANDBOX_URL=http://127.0.0.1:8080/sandbox/verifyReceipt subrecon run
              SUBRECON_APPLE_API=server-api SUBRECON_API_URL=http://127.0.0.1:8080 \\
              SUBRECON_API_SANDBOX_URL=http://127.0.0.1:8080/sandbox \\
              SUBRECON_APPLE_ROOT_CA_FILE=/tmp/sim-root.pem subrecon run  # + the key's
              SUBRECON_ASC_URL=http://127.0.0.1:8080 SUBRECON_VENDOR_NUMBER=80012345 \\
              subrecon apple-reports fetch                  # + the team key's settings
            """)

    @Option(parsing: .unconditional, help: "Port on 127.0.0.1 (0: a free one, printed on start).")
    var port: UInt16 = 0

    @Option(parsing: .unconditional, help: "Milliseconds added to every answer.")
    var latencyMs: Int = 0

    @Option(help: "A file whose first line is the shared secret the simulator expects (default: accept any).")
    var sharedSecretFile: String?

    @Option(help: "Write sample receipts (CSV, one per scenario) to this file and keep serving.")
    var writeSampleReceipts: String?

    @Option(help: "Write the sample receipts' subscribers' App Store Server Notifications V2 (JSON Lines, one {\"signedPayload\":...} per line, oldest first) to this file, for 'notifications import'; Get Notification History serves them too.")
    var writeNotifications: String?

    @Option(help: "Write the root certificate (PEM) that Server API signatures chain to, for SUBRECON_APPLE_ROOT_CA_FILE.")
    var writeRootCA: String?

    @Option(help: "An In-App Purchase key (.p8): the Server API then accepts only JWTs signed by it (401 otherwise), with or without iat, as Apple's servers do.")
    var apiKeyFile: String?

    @Option(help: "With --api-key-file: the key's id, which a JWT's kid must then be (default: any non-empty kid).")
    var apiKeyID: String?

    @Option(help: "With --api-key-file: the issuer id, which a JWT's iss must then be (default: any non-empty iss).")
    var apiIssuerID: String?

    @Option(help: "A team App Store Connect API key (.p8): /v1/salesReports then accepts only JWTs signed by it (401 otherwise).")
    var ascKeyFile: String?

    @Option(help: "The vendor number /v1/salesReports serves; any other is refused as Apple does.")
    var vendorNumber: String = SalesReportOptions.defaultVendorNumber

    @Option(parsing: .unconditional, help: "Server API requests per second above which the simulator answers 429 (default: no limit).")
    var apiRateLimit: Double?

    @Option(
        name: [.customLong("notification-url"), .customLong("notify-url")],
        help: "The app's notification URL (e.g. a `subrecon notifications serve`): the sample accounts' notifications are POSTed there once started, and Request a Test Notification (POST /inApps/v1/notifications/test) sends its TEST notification there, as Apple would; each attempt is recorded in the notification history. Without it, Request a Test Notification answers 404 4040007.")
    var notifyURL: String?

    @Option(parsing: .unconditional, help: "Signed transactions per transaction-history page (Apple: 20).")
    var historyPageSize: Int = 20

    @Option(help: "subrecon's apps file (SUBRECON_APPS_FILE): serve every app it lists, each with its bundle ID, app_apple_id, shared secret and In-App Purchase key (what it leaves out is not checked), each with its own --api-rate-limit; sample receipts and notifications then cover every app. Not with --shared-secret-file or --api-key-file.")
    var appsFile: String?

    @Flag(inversion: .prefixedNo, help: "Let the Server API learn the account of every receipt verifyReceipt sees (off for huge verify-receipt benchmarks).")
    var registerVerifiedReceipts = true

    func validate() throws {
        if latencyMs < 0 { throw ValidationError("--latency-ms must be 0 or more") }
        if let apiRateLimit, !(apiRateLimit > 0) { throw ValidationError("--api-rate-limit must be more than 0") }
        if historyPageSize < 1 { throw ValidationError("--history-page-size must be at least 1") }
        if vendorNumber.isEmpty { throw ValidationError("--vendor-number must not be empty") }
        if apiKeyFile == nil, apiKeyID != nil || apiIssuerID != nil {
            throw ValidationError("--api-key-id and --api-issuer-id go with --api-key-file")
        }
        if appsFile != nil, sharedSecretFile != nil || apiKeyFile != nil {
            throw ValidationError(
                "--apps-file gives each app its own secret and key: leave out --shared-secret-file and --api-key-file")
        }
    }

    func run() async throws {
        var request = StandaloneSimulator.Request()
        request.port = port
        request.latencyMs = latencyMs
        request.sharedSecretFile = sharedSecretFile
        request.writeSampleReceipts = writeSampleReceipts
        request.writeNotifications = writeNotifications
        request.writeRootCA = writeRootCA
        request.apiKeyFile = apiKeyFile
        request.apiKeyID = apiKeyID
        request.apiIssuerID = apiIssuerID
        request.ascKeyFile = ascKeyFile
        request.vendorNumber = vendorNumber
        request.apiRateLimit = apiRateLimit
        request.notificationURL = notifyURL
        request.historyPageSize = historyPageSize
        request.registersVerifiedReceipts = registerVerifiedReceipts
        request.appsFile = appsFile
        try await StandaloneSimulator.serve(request, output: Console.output)
    }
}
