import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// `Settings.resolve(environment:flags:)` and the verifyReceipt request body.
@Suite("Settings")
struct SettingsTests {
    static let secret = "s3cr3t-DO-NOT-LEAK-1234"
    static let withSecret = ["SUBRECON_SHARED_SECRET": secret]

    /// A fresh file in the temporary directory holding `contents`, with `mode`; removed by the caller.
    private func temporaryFile(_ contents: String, mode: Int = 0o600) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("subrecon-settings-\(UUID().uuidString).secret").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: path)
        return path
    }

    private func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    private func resolve(_ environment: [String: String], _ flags: Settings.Flags = .init()) throws(ConfigurationError) -> Settings {
        try Settings.resolve(environment: environment, flags: flags)
    }

    // MARK: the secret's sources

    @Test("no secret anywhere is a configuration error", arguments: [
        [String: String](),
        ["SUBRECON_SHARED_SECRET": ""],
        ["SUBRECON_SHARED_SECRET": "   "],
        ["SUBRECON_SHARED_SECRET_FILE": ""],
        ["SUBRECON_DB": "/tmp/x.sqlite", "SUBRECON_CONCURRENCY": "4"],
    ])
    func missingSecret(environment: [String: String]) {
        #expect(throws: ConfigurationError.missingSharedSecret) { try resolve(environment) }
    }

    @Test func theSecretFromTheEnvironmentIsUsedTrimmed() throws {
        let settings = try resolve(["SUBRECON_SHARED_SECRET": "  \(Self.secret)\n"])
        #expect(settings.sharedSecret?.value == Self.secret)
        #expect(settings.warnings.isEmpty)
    }

    @Test func bothTheVariableAndAFileAreAnError() throws {
        let path = try temporaryFile(Self.secret + "\n")
        defer { remove(path) }
        // Given the secret in the environment, and a file by variable or by flag
        // Then either way it is refused, so nobody wonders which one was used
        #expect(throws: ConfigurationError.bothSharedSecretSourcesSet) {
            try resolve(["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_SHARED_SECRET_FILE": path])
        }
        #expect(throws: ConfigurationError.bothSharedSecretSourcesSet) {
            try resolve(Self.withSecret, Settings.Flags(sharedSecretFile: path))
        }
    }

    @Test("the file's first line is the secret, trimmed", arguments: [
        "s3cr3t-DO-NOT-LEAK-1234",
        "s3cr3t-DO-NOT-LEAK-1234\n",
        "  s3cr3t-DO-NOT-LEAK-1234  \n",
        "\ts3cr3t-DO-NOT-LEAK-1234\t\nsecond line\nthird\n",
        "s3cr3t-DO-NOT-LEAK-1234\r\n",
        "s3cr3t-DO-NOT-LEAK-1234\nold-secret\n",
    ])
    func secretFileFirstLine(contents: String) throws {
        // Given a secret file (mode 600)
        let path = try temporaryFile(contents)
        defer { remove(path) }
        // When settings are resolved from it, by variable and by flag
        let byVariable = try resolve(["SUBRECON_SHARED_SECRET_FILE": path])
        let byFlag = try resolve([:], Settings.Flags(sharedSecretFile: path))
        // Then the secret is exactly the first line, without surrounding blanks
        #expect(byVariable.sharedSecret?.value == Self.secret)
        #expect(byFlag.sharedSecret?.value == Self.secret)
        #expect(byVariable.warnings.isEmpty)
    }

    @Test func aSecretFileWithWindowsLineEndingsYieldsOnlyItsFirstLine() throws {
        // Given a secret file saved with CRLF line ends and a second line (in Swift, "\r\n" is one Character)
        let path = try temporaryFile(Self.secret + "\r\n# rotated 2026-01-05\r\n")
        defer { remove(path) }
        // When settings are resolved from it
        let settings = try resolve(["SUBRECON_SHARED_SECRET_FILE": path])
        // Then the secret is the first line alone, not both lines sent to Apple as the password
        #expect(settings.sharedSecret?.value == Self.secret)
    }

    @Test func theFlagFileWinsOverTheVariableFile() throws {
        let flagged = try temporaryFile("from-flag\n")
        let variable = try temporaryFile("from-variable\n")
        defer { remove(flagged); remove(variable) }
        let settings = try resolve(["SUBRECON_SHARED_SECRET_FILE": variable], Settings.Flags(sharedSecretFile: flagged))
        #expect(settings.sharedSecret?.value == "from-flag")
    }

    @Test("a file whose first line is blank is empty", arguments: ["", "\n", "   \n", "\nsecret-on-line-two\n", " \t \r\n"])
    func emptySecretFile(contents: String) throws {
        let path = try temporaryFile(contents)
        defer { remove(path) }
        #expect(throws: ConfigurationError.sharedSecretFileEmpty(path: path)) {
            try resolve(["SUBRECON_SHARED_SECRET_FILE": path])
        }
    }

    @Test func aMissingFileIsUnreadable() {
        let path = "/nonexistent-\(UUID().uuidString)/secret"
        #expect(throws: ConfigurationError.sharedSecretFileUnreadable(path: path, reason: "no such file")) {
            try resolve([:], Settings.Flags(sharedSecretFile: path))
        }
    }

    @Test("a secret file that group or others can read gives a warning", arguments: [0o644, 0o640, 0o604, 0o660])
    func groupReadable(mode: Int) throws {
        let path = try temporaryFile(Self.secret + "\n", mode: mode)
        defer { remove(path) }
        let settings = try resolve(["SUBRECON_SHARED_SECRET_FILE": path])
        #expect(settings.sharedSecret?.value == Self.secret)
        #expect(settings.warnings.count == 1)
        #expect(settings.warnings.first?.contains(path) == true)
        #expect(settings.warnings.first?.contains(Self.secret) == false)
    }

    @Test("a secret file only its owner can read gives no warning", arguments: [0o600, 0o400])
    func ownerOnly(mode: Int) throws {
        let path = try temporaryFile(Self.secret + "\n", mode: mode)
        defer { remove(path) }
        let settings = try resolve(["SUBRECON_SHARED_SECRET_FILE": path])
        #expect(settings.warnings.isEmpty)
    }

    // MARK: the database

    @Test func theDatabaseStaysTheSQLitePathGivenAndIgnoresAPasswordFile() throws {
        // Given no SUBRECON_DB, or a path by variable and by flag, with a password file that does not exist
        let noFile = ["SUBRECON_DB_PASSWORD_FILE": "/nonexistent/db-password"]
        let byDefault = try resolve(Self.withSecret.merging(noFile) { $1 })
        let byFlag = try resolve(
            Self.withSecret.merging(noFile) { $1 }.merging(["SUBRECON_DB": "/env.sqlite"]) { $1 },
            Settings.Flags(databasePath: "/flag.sqlite"))
        // Then it is SQLite, as before, and the password file is not looked at
        #expect(byDefault.database == .sqlite(path: "./subrecon.sqlite"))
        #expect(byFlag.database == .sqlite(path: "/flag.sqlite"))
        #expect(byFlag.databasePath == "/flag.sqlite")
        #expect(byDefault.warnings.isEmpty)
    }

    @Test func aPostgresURLTakesItsPasswordFileByVariableOrFlag() throws {
        // Given a PostgreSQL URL and a password file others can read
        let password = "db-Zq9sXw7t"
        let path = try temporaryFile(password + "\n", mode: 0o644)
        defer { remove(path) }
        let url = "postgres://subrecon@db.example.com/subrecon"
        let withURL = Self.withSecret.merging(["SUBRECON_DB": url]) { $1 }
        // When resolved with the file by variable and by flag
        let byVariable = try resolve(withURL.merging(["SUBRECON_DB_PASSWORD_FILE": path]) { $1 })
        let byFlag = try resolve(withURL, Settings.Flags(databasePasswordFile: path))
        for settings in [byVariable, byFlag] {
            // Then the location is PostgreSQL with the file's password, and the file's mode is warned about
            let expected = PostgresLocation(host: "db.example.com", user: "subrecon", password: password, database: "subrecon")
            #expect(settings.database == .postgres(expected))
            #expect(settings.databasePath == url)
            #expect(settings.warnings.count == 1)
            #expect(settings.warnings.first?.contains("the database password file \(path)") == true)
            #expect(settings.warnings.first?.contains(password) == false)
        }
    }

    @Test func aDatabaseURLShowsOnlyMaskedAndItsProblemsAreConfigurationErrors() throws {
        // Given a URL with a password
        let url = "postgres://u:Zq9sXw7t@db.example.com/d"
        let settings = try resolve(Self.withSecret.merging(["SUBRECON_DB": url]) { $1 })
        // Then the path shown is masked, and printing the settings does not show the password
        #expect(settings.databasePath == "postgres://u:***@db.example.com/d")
        var dumped = ""
        dump(settings, to: &dumped)
        for text in ["\(settings)", String(reflecting: settings), dumped] {
            #expect(text.contains("postgres://u:***@db.example.com/d"))
            #expect(!text.contains("Zq9sXw7t"))
        }
        // And a password file as well, or a malformed URL, stops the resolution
        let path = try temporaryFile("other\n")
        defer { remove(path) }
        #expect(throws: ConfigurationError.bothDatabasePasswordSourcesSet(maskedURL: "postgres://u:***@db.example.com/d")) {
            try resolve(Self.withSecret.merging(["SUBRECON_DB": url, "SUBRECON_DB_PASSWORD_FILE": path]) { $1 })
        }
        let badPort = ConfigurationError.invalidDatabaseURL(
            maskedURL: "postgres://u:***@db.example.com:x/d", problem: #"has a bad port "x" (a whole number from 1 to 65535)"#)
        #expect(throws: badPort) {
            try resolve(Self.withSecret.merging(["SUBRECON_DB": "postgres://u:Zq9sXw7t@db.example.com:x/d"]) { $1 })
        }
    }

    // MARK: defaults and precedence

    @Test func defaultsApplyWhenNothingElseIsSet() throws {
        let settings = try resolve(Self.withSecret)
        #expect(settings.databasePath == "./subrecon.sqlite")
        #expect(settings.endpoints == VerifyReceiptEndpoints.apple)
        #expect(settings.endpoints.production == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(settings.endpoints.sandbox == "https://sandbox.itunes.apple.com/verifyReceipt")
        #expect(settings.concurrency == Settings.defaultConcurrency)
        #expect(settings.products.isEmpty)
        #expect(settings.caFile == nil)
    }

    @Test func theEnvironmentIsUsedWhenNoFlagIsGiven() throws {
        let settings = try resolve([
            "SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_DB": "/var/lib/subrecon/db.sqlite",
            "SUBRECON_PRODUCTION_URL": "https://env-prod.example/verifyReceipt",
            "SUBRECON_SANDBOX_URL": "http://127.0.0.1:8080/verifyReceipt", "SUBRECON_CONCURRENCY": "12",
            "SUBRECON_PRODUCTS": "com.example.monthly",
        ])
        #expect(settings.databasePath == "/var/lib/subrecon/db.sqlite")
        #expect(settings.endpoints.production == "https://env-prod.example/verifyReceipt")
        #expect(settings.endpoints.sandbox == "http://127.0.0.1:8080/verifyReceipt")
        #expect(settings.concurrency == 12)
        #expect(settings.products == ["com.example.monthly"])
    }

    @Test func flagsWinOverTheEnvironment() throws {
        // Given every setting in the environment and as a flag
        let environment = [
            "SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_DB": "/env.sqlite",
            "SUBRECON_PRODUCTION_URL": "https://env-prod.example/verifyReceipt",
            "SUBRECON_SANDBOX_URL": "https://env-sandbox.example/verifyReceipt", "SUBRECON_CONCURRENCY": "12",
            "SUBRECON_PRODUCTS": "env.a,env.b",
        ]
        let flags = Settings.Flags(
            databasePath: "/flag.sqlite", productionURL: "https://flag-prod.example/verifyReceipt",
            sandboxURL: "https://flag-sandbox.example/verifyReceipt", concurrency: 3, products: ["flag.a", "flag.b"])
        // When resolved
        let settings = try resolve(environment, flags)
        // Then each flag wins
        #expect(settings.databasePath == "/flag.sqlite")
        #expect(settings.endpoints.production == "https://flag-prod.example/verifyReceipt")
        #expect(settings.endpoints.sandbox == "https://flag-sandbox.example/verifyReceipt")
        #expect(settings.concurrency == 3)
        #expect(settings.products == ["flag.a", "flag.b"])
    }

    @Test func aFlagConcurrencyWinsEvenOverAnUnparsableVariable() throws {
        let settings = try resolve(
            ["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_CONCURRENCY": "abc"], Settings.Flags(concurrency: 8))
        #expect(settings.concurrency == 8)
    }

    @Test("SUBRECON_PRODUCTS is a comma-separated list", arguments: [
        ("a", ["a"]),
        ("a,b,c", ["a", "b", "c"]),
        (" com.example.monthly , com.example.yearly ", ["com.example.monthly", "com.example.yearly"]),
        ("a,,b,", ["a", "b"]),
        ("a,a,b", ["a", "b"]),
        ("", []),
        (" , ", []),
    ])
    func productList(variable: String, expected: [String]) throws {
        let settings = try resolve(["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_PRODUCTS": variable])
        #expect(settings.products == Set(expected))
    }

    @Test func repeatedProductFlagsAreTrimmedAndBlankOnesDropped() throws {
        let settings = try resolve(Self.withSecret, Settings.Flags(products: [" a ", "b", "", "a"]))
        #expect(settings.products == ["a", "b"])
    }

    // MARK: bad values

    @Test("a production URL that is not http(s) with a host is refused", arguments: [
        "ftp://buy.itunes.apple.com/verifyReceipt", "buy.itunes.apple.com/verifyReceipt", "not a url", "https://",
        "file:///etc/passwd", "mailto:ops@example.com",
    ])
    func badProductionURL(value: String) {
        #expect(throws: ConfigurationError.invalidURL(setting: "SUBRECON_PRODUCTION_URL / --production-url", value: value)) {
            try resolve(["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_PRODUCTION_URL": value])
        }
        #expect(throws: ConfigurationError.invalidURL(setting: "SUBRECON_PRODUCTION_URL / --production-url", value: value)) {
            try resolve(Self.withSecret, Settings.Flags(productionURL: value))
        }
    }

    @Test func aBadSandboxURLNamesTheSandboxSetting() {
        #expect(throws: ConfigurationError.invalidURL(setting: "SUBRECON_SANDBOX_URL / --sandbox-url", value: "gopher://x")) {
            try resolve(Self.withSecret, Settings.Flags(sandboxURL: "gopher://x"))
        }
    }

    @Test("a concurrency variable that is not a whole number from 1 to 1024 is refused", arguments: [
        "abc", "0", "5000", "-3", "1.5", "1025", "99999999999999999999999",
    ])
    func badConcurrencyVariable(value: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try resolve(["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_CONCURRENCY": value])
        }
        guard case .invalidNumber(let setting, let reported, let expected)? = error else {
            Issue.record("expected invalidNumber, got \(String(describing: error))")
            return
        }
        #expect(setting.contains("SUBRECON_CONCURRENCY"))
        #expect(reported == value)
        #expect(expected.contains("1") && expected.contains("1024"))
    }

    @Test("a concurrency flag out of range is refused", arguments: [0, -1, 1025, 5000])
    func badConcurrencyFlag(value: Int) {
        #expect(
            throws: ConfigurationError.invalidNumber(
                setting: "SUBRECON_CONCURRENCY / --concurrency", value: "\(value)", expected: "a whole number from 1 to 1024")
        ) {
            try resolve(Self.withSecret, Settings.Flags(concurrency: value))
        }
    }

    @Test("concurrency at the ends of the range is accepted", arguments: [1, 1024])
    func concurrencyBounds(value: Int) throws {
        #expect(try resolve(Self.withSecret, Settings.Flags(concurrency: value)).concurrency == value)
        #expect(try resolve(["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_CONCURRENCY": "\(value)"]).concurrency == value)
    }

    @Test func anUnreadableCAFileIsRefused() {
        let error = #expect(throws: ConfigurationError.self) {
            try resolve(Self.withSecret, Settings.Flags(caFile: "/nonexistent-\(UUID().uuidString).pem"))
        }
        guard case .other? = error else {
            Issue.record("expected .other, got \(String(describing: error))")
            return
        }
    }

    // MARK: the secret never shows

    @Test func theSecretNeverAppearsInSettingsDescriptions() throws {
        let settings = try resolve(Self.withSecret, Settings.Flags(products: ["p"]))
        #expect(settings.sharedSecret?.value == Self.secret)
        let texts = [
            String(describing: settings.sharedSecret), String(reflecting: settings.sharedSecret), "\(settings.sharedSecret)",
            "\(settings)", String(describing: settings), String(reflecting: settings),
        ]
        for text in texts {
            #expect(!text.contains(Self.secret), "\(text)")
        }
        #expect("\(settings)".contains("redacted"))
    }

    @Test func theSecretNeverAppearsInADumpOfTheSettings() throws {
        let settings = try resolve(Self.withSecret)
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains(Self.secret))
        var dumpedSecret = ""
        dump(settings.sharedSecret, to: &dumpedSecret)
        #expect(!dumpedSecret.contains(Self.secret))
    }

    @Test func theSecretNeverAppearsInAnyConfigurationErrorMadeWhileItIsSet() throws {
        // Given the secret set, every reachable configuration error
        let path = try temporaryFile(Self.secret + "\n")
        defer { remove(path) }
        let attempts: [([String: String], Settings.Flags)] = [
            (["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_SHARED_SECRET_FILE": path], .init()),
            (Self.withSecret, Settings.Flags(sharedSecretFile: path)),
            (Self.withSecret, Settings.Flags(productionURL: "ftp://x")),
            (Self.withSecret, Settings.Flags(sandboxURL: "nope")),
            (["SUBRECON_SHARED_SECRET": Self.secret, "SUBRECON_CONCURRENCY": "abc"], .init()),
            (Self.withSecret, Settings.Flags(concurrency: 0)),
            (Self.withSecret, Settings.Flags(caFile: "/nonexistent.pem")),
        ]
        var descriptions: [String] = []
        for (environment, flags) in attempts {
            do throws(ConfigurationError) {
                _ = try resolve(environment, flags)
                Issue.record("expected a configuration error")
            } catch {
                descriptions += [error.description, "\(error)", String(reflecting: error)]
            }
        }
        #expect(descriptions.count == attempts.count * 3)
        for text in descriptions {
            #expect(!text.contains(Self.secret), "\(text)")
        }
    }

    @Test("no ConfigurationError description holds the secret", arguments: [
        ConfigurationError.missingSharedSecret, .bothSharedSecretSourcesSet,
        .sharedSecretFileUnreadable(path: "/etc/subrecon/secret", reason: "no such file"),
        .sharedSecretFileEmpty(path: "/etc/subrecon/secret"),
        .invalidURL(setting: "SUBRECON_PRODUCTION_URL / --production-url", value: "ftp://x"),
        .invalidNumber(setting: "SUBRECON_CONCURRENCY", value: "abc", expected: "a whole number from 1 to 1024"),
        .invalidValue(setting: "--format", value: "xml", validChoices: ["csv", "jsonl"]),
        .unknownUser("user-1"),
    ])
    func errorDescriptions(error: ConfigurationError) {
        #expect(!error.description.isEmpty)
        #expect(!error.description.contains(SettingsTests.secret))
    }

    // MARK: request body

    private struct DecodedBody: Decodable {
        var receiptData: String
        var password: String
        var excludeOldTransactions: Bool
        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data", password, excludeOldTransactions = "exclude-old-transactions"
        }
    }

    @Test("the request body is strict JSON that round-trips its strings", arguments: [
        ("MIIUUQYJKoZIhvcNAQcCoIIUQjCC+/=", "0f3c9d2e7b5a4c1e8d6f2a9b3c7e1d45"),
        (#"with "quotes" inside"#, #"pass"word"#),
        (#"back\slash\\double"#, #"\"#),
        ("line\nbreak\rreturn\ttab", "nul\u{00}and\u{01}\u{1F}unit"),
        ("unicode é ü 漢字 🙂 \u{7F}", "s3cr3t-DO-NOT-LEAK-1234"),
        (#"</script>\u0000"#, "{}[],:"),
        ("", ""),
    ])
    func requestBody(receiptData: String, secret: String) throws {
        // Given receipt data and a secret with characters JSON must escape
        // When the body is built
        let body = VerifyReceiptClient.requestBody(receiptData: receiptData, secret: SharedSecret(secret))
        let data = Data(body)
        // Then a strict parser reads exactly three keys back
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["receipt-data", "password", "exclude-old-transactions"])
        #expect(object["receipt-data"] as? String == receiptData)
        #expect(object["password"] as? String == secret)
        // And exclude-old-transactions is a real JSON boolean, true
        let decoded = try JSONDecoder().decode(DecodedBody.self, from: data)
        #expect(decoded.receiptData == receiptData)
        #expect(decoded.password == secret)
        #expect(decoded.excludeOldTransactions == true)
        // And no raw control character is left in the bytes
        #expect(!body.contains { $0 < 0x20 })
        #expect(String(decoding: body, as: UTF8.self).hasSuffix(#""exclude-old-transactions":true}"#))
    }
}
