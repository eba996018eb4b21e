import Crypto
import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
import Testing

/// `SUBRECON_APPS_FILE`: several apps in one deployment. The file is checked whole before
/// anything happens, every problem names the app and the key, and the single-app variables
/// clash with it.
@Suite("Apps file")
struct AppsFileTests {
    let folder: String
    let keyPath: String
    let secretPath: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-apps-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        keyPath = folder + "/AuthKey_NEWS.p8"
        _ = FileManager.default.createFile(
            atPath: keyPath, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8),
            attributes: [.posixPermissions: 0o600])
        secretPath = folder + "/cooking.secret"
        _ = FileManager.default.createFile(
            atPath: secretPath, contents: Data("cooking-shared-secret-3f9a\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    func parse(_ text: String) throws(ConfigurationError) -> AppsFile {
        try AppsFile.parse(Data(text.utf8), path: "apps.json")
    }

    /// The problem `text` is refused with.
    func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    var twoApps: String {
        """
        {"apps": [
          {"bundle_id": "com.example.news", "apple_api": "server-api", "api_key_file": "\(keyPath)",
           "api_key_id": "NEWSKEY123", "api_issuer_id": "57246542-96fe-1a63-e053-0824d011072a",
           "app_apple_id": 1480000017, "products": ["news.monthly", "news.yearly"], "api_rate": 25},
          {"bundle_id": "com.example.cooking", "shared_secret_file": "\(secretPath)"}
        ]}
        """
    }

    @Test func twoAppsAreReadWithTheirOwnSettings() throws {
        let file = try parse(twoApps)
        #expect(file.bundleIDs == ["com.example.news", "com.example.cooking"])
        let news = file.apps[0]
        #expect(news.appleAPI == .serverAPI)
        #expect(news.apiKeyID == "NEWSKEY123")
        #expect(news.appAppleID == 1_480_000_017)
        #expect(news.products == ["news.monthly", "news.yearly"])
        #expect(news.apiRate == 25)
        let cooking = file.apps[1]
        #expect(cooking.appleAPI == .verifyReceipt)
        #expect(cooking.sharedSecretFile == secretPath)
        #expect(cooking.apiRate == nil)
    }

    @Test func settingsResolveEachAppWithItsCredentialsAndBudget() throws {
        let path = folder + "/apps.json"
        try twoApps.write(toFile: path, atomically: true, encoding: .utf8)
        let settings = try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: Settings.Flags())
        #expect(settings.appsFile == path)
        #expect(settings.apps.map(\.bundleID) == ["com.example.news", "com.example.cooking"])
        let news = try #require(settings.apps[0].serverAPI)
        #expect(news.bundleID == "com.example.news")
        #expect(news.key.keyID == "NEWSKEY123")
        #expect(news.requestsPerSecond == 25)
        #expect(news.appAppleID == 1_480_000_017)
        #expect(settings.apps[0].products == ["news.monthly", "news.yearly"])
        #expect(settings.apps[0].sharedSecret == nil)
        #expect(settings.apps[1].serverAPI == nil)
        #expect(settings.apps[1].sharedSecret?.value == "cooking-shared-secret-3f9a")
        #expect(settings.apps[1].products.isEmpty)
        // `--app` restricts to the apps it names; an app the file does not list is refused.
        var flags = Settings.Flags()
        flags.apps = ["com.example.cooking"]
        let restricted = try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: flags)
        #expect(restricted.selectedApps.map(\.bundleID) == ["com.example.cooking"])
        flags.apps = ["com.example.games"]
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: flags)
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("com.example.games") == true
        }
    }

    @Test func withoutTheFileTheSingleAppVariablesDescribeOneApp() throws {
        let settings = try Settings.resolve(
            environment: ["SUBRECON_SHARED_SECRET": "s3cr3t", "SUBRECON_BUNDLE_ID": "com.example.app", "SUBRECON_PRODUCTS": "a,b"],
            flags: Settings.Flags())
        #expect(settings.apps.count == 1)
        #expect(settings.appsFile == nil)
        #expect(settings.apps[0].bundleID == "com.example.app")
        #expect(settings.appleAPI == .verifyReceipt)
        #expect(settings.products == ["a", "b"])
        #expect(settings.selectedApps.count == 1)
    }

    @Test(arguments: AppsFile.clashingVariables)
    func aSingleAppVariableBesideTheFileIsAConfigurationError(variable: String) throws {
        let path = folder + "/apps.json"
        try twoApps.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path, variable: "x"], flags: Settings.Flags())
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains(variable) && text.contains(path) && !text.contains("\"x\"")
        }
    }

    @Test func aPerAppFlagBesideTheFileIsAConfigurationError() throws {
        let path = folder + "/apps.json"
        try twoApps.write(toFile: path, atomically: true, encoding: .utf8)
        var flags = Settings.Flags()
        flags.serverAPI.bundleID = "com.example.news"
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: flags)
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("--bundle-id") == true
        }
    }

    @Test(arguments: [
        ("[]", "must be a JSON object"),
        ("{\"apps\": [], \"extra\": 1}", "unknown key \"extra\" at the top level"),
        ("{}", "has no \"apps\" list"),
        ("{\"apps\": {}}", "\"apps\" must be a list of objects, not an object"),
        ("{\"apps\": []}", "\"apps\" is empty"),
        ("{\"apps\": [1]}", "app 1 must be a JSON object, not a number"),
        ("{\"apps\": [{\"shared_secret_file\": \"/s\"}]}", "app 1: \"bundle_id\" is missing"),
        ("{\"apps\": [{\"bundle_id\": 7}]}", "app 1: \"bundle_id\" must be a non-empty string, not 7"),
        ("{\"apps\": [{\"bundle_id\": \"com.x y\"}]}", "may hold only letters"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret\": \"abc\"}]}", "app 1 (com.a): unknown key \"shared_secret\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"apple_api\": \"storekit\", \"shared_secret_file\": \"/s\"}]}",
         "app 1 (com.a): \"apple_api\" must be one of verify-receipt, server-api, not \"storekit\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\"}]}", "app 1 (com.a): apple_api \"verify-receipt\" needs \"shared_secret_file\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"apple_api\": \"server-api\", \"api_key_file\": \"/k\"}]}",
         "app 1 (com.a): apple_api \"server-api\" needs \"api_key_id\", \"api_issuer_id\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"app_apple_id\": \"148\"}]}",
         "\"app_apple_id\" must be the app's Apple ID, a positive JSON integer, not \"148\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"app_apple_id\": 1.5}]}",
         "a positive JSON integer, not 1.5"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"products\": \"a,b\"}]}",
         "\"products\" must be a list of product IDs, not a string"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"products\": [\"a\", 2]}]}",
         "\"products\" must hold non-empty strings, not 2"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"api_rate\": -1}]}",
         "\"api_rate\" must be requests per second, a number from 0 to 10000 (0 = no limit), not -1"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\", \"api_rate\": \"40\"}]}", "not \"40\""),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/s\"}, {\"bundle_id\": \"com.a\", \"shared_secret_file\": \"/t\"}]}",
         "app 2 (com.a): the bundle ID is listed twice (also app 1)"),
        ("{\"apps\": [{\"bundle_id\": \"com.a\", \"bundle_id\": \"com.b\"}]}", "names \"bundle_id\" twice in one object"),
        ("{\"apps\": [", "is not valid JSON"),
    ])
    func aMalformedFileNamesTheAppAndTheProblem(text: String, expected: String) {
        let message = problem(text)
        #expect(message?.contains(expected) == true, "\(message ?? "accepted")")
        #expect(message?.hasPrefix("the apps file apps.json: ") == true)
    }

    @Test func aMissingFileIsAConfigurationErrorNamingIt() {
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": folder + "/none.json"], flags: Settings.Flags())
        } throws: { error in
            (error as? ConfigurationError)?.description == "cannot read the apps file \(folder)/none.json (SUBRECON_APPS_FILE / --apps-file): no such file"
        }
    }

    @Test func anUnreadableSecretFileNamesTheAppAndNeverItsContent() throws {
        let path = folder + "/apps.json"
        try """
            {"apps": [{"bundle_id": "com.example.cooking", "shared_secret_file": "\(folder)/missing.secret"}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: Settings.Flags())
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("app com.example.cooking") && text.contains("missing.secret")
        }
        // A key file that is not a key: named, never echoed.
        let bogus = folder + "/bogus.p8"
        try "-----BEGIN PRIVATE KEY-----\nU0VDUkVUS0VZQ09OVEVOVA==\n-----END PRIVATE KEY-----\n"
            .write(toFile: bogus, atomically: true, encoding: .utf8)
        try """
            {"apps": [{"bundle_id": "com.example.news", "apple_api": "server-api", "api_key_file": "\(bogus)",
              "api_key_id": "K", "api_issuer_id": "I"}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try Settings.resolve(environment: ["SUBRECON_APPS_FILE": path], flags: Settings.Flags())
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("app com.example.news") && text.contains(bogus) && !text.contains("U0VDUkVUS0VZ")
        }
    }
}
