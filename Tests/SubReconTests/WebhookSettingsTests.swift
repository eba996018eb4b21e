import Foundation
@testable import SubRecon
@testable import SubReconModel
import Testing

/// `WebhookSettings.resolve` and its place in `Settings`: every bad webhook setting is a
/// configuration error naming the setting, never quoting a secret.
@Suite("Webhook settings")
struct WebhookSettingsTests {
    static let withSecret = ["SUBRECON_SHARED_SECRET": "shared-3f9a"]
    let folder: String
    let secretText: String
    let secretFile: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-webhooks-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        secretText = WebhookSecret.generate()
        secretFile = folder + "/hooks.secret"
        _ = FileManager.default.createFile(atPath: secretFile, contents: Data((secretText + "\n").utf8), attributes: [.posixPermissions: 0o600])
    }

    func file(_ name: String, _ contents: String, mode: Int = 0o600) -> String {
        let path = folder + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
        return path
    }

    func resolve(_ environment: [String: String], _ flags: WebhookSettings.Flags = .init(), appsFile: AppsFile? = nil) throws(ConfigurationError)
        -> WebhookSettings
    {
        var warnings: [String] = []
        return try WebhookSettings.resolve(environment: environment, flags: flags, appsFile: appsFile, warnings: &warnings)
    }

    /// The sentence `environment` (with `flags`) is refused with.
    func problem(_ environment: [String: String], _ flags: WebhookSettings.Flags = .init(), appsFile: AppsFile? = nil) -> String? {
        do {
            _ = try resolve(environment, flags, appsFile: appsFile)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func nothingSetMeansDefaultsAndNoEndpoint() throws {
        let settings = try resolve([:])
        #expect(settings.concurrency == 16)
        #expect(settings.timeout == .seconds(10))
        #expect(settings.schedule == .standard)
        #expect(!settings.isConfigured)
        #expect(settings.endpoint(for: nil) == nil)
        #expect(settings.endpoint(for: "com.example.app") == nil)
    }

    @Test func theSingleAppEndpointServesEveryApp() throws {
        let rotation = file("rotation.secret", "\(secretText)\n\n\(WebhookSecret.generate())\n")
        let settings = try resolve([
            "SUBRECON_WEBHOOK_URL": " https://hooks.example.com/subrecon?key=1 ", "SUBRECON_WEBHOOK_SECRET_FILE": rotation,
            "SUBRECON_WEBHOOK_CONCURRENCY": "256", "SUBRECON_WEBHOOK_TIMEOUT": "2.5", "SUBRECON_WEBHOOK_RETRY_SCHEDULE": "0,1",
        ])
        let endpoint = try #require(settings.endpoint(for: nil))
        #expect(endpoint.url == "https://hooks.example.com/subrecon?key=1")
        #expect(endpoint.secretFile == rotation)
        #expect(endpoint.secrets.count == 2)
        #expect(endpoint.secrets[0] == (try WebhookSecret(text: secretText)))
        #expect(settings.endpoint(for: "com.example.other") == endpoint)
        #expect(settings.concurrency == 256)
        #expect(settings.timeout == .milliseconds(2500))
        #expect(settings.schedule.delaysSeconds == [0, 1])
        #expect(!"\(endpoint)".contains(secretText.dropFirst(6).prefix(12)))
    }

    @Test func flagsWinOverTheVariables() throws {
        let other = file("other.secret", WebhookSecret.generate() + "\n")
        let settings = try resolve(
            [
                "SUBRECON_WEBHOOK_URL": "http://example.com/plain", "SUBRECON_WEBHOOK_SECRET_FILE": "/no/such/file",
                "SUBRECON_WEBHOOK_CONCURRENCY": "0", "SUBRECON_WEBHOOK_TIMEOUT": "x",
            ],
            WebhookSettings.Flags(url: "http://127.0.0.1:9/x", secretFile: other, concurrency: 3, timeoutSeconds: 0.25))
        #expect(settings.endpoint(for: nil)?.url == "http://127.0.0.1:9/x")
        #expect(settings.endpoint(for: nil)?.secretFile == other)
        #expect(settings.concurrency == 3)
        #expect(settings.timeout == .milliseconds(250))
    }

    @Test func aURLWithoutASecretFileAndTheReverseAreRefused() throws {
        let noFile = try #require(problem(["SUBRECON_WEBHOOK_URL": "https://example.com/x"]))
        #expect(noFile.contains("SUBRECON_WEBHOOK_URL / --webhook-url is set but SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file is not"))
        let noURL = try #require(problem([:], WebhookSettings.Flags(secretFile: secretFile)))
        #expect(noURL.contains("SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file is set but SUBRECON_WEBHOOK_URL / --webhook-url is not"))
    }

    @Test("a bad secret file is refused naming the setting and the file, never the secret", arguments: [
        ("missing", "no such file"),
        ("", "is empty"),
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", "line 1: does not start with whsec_"),
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\nwhsec_MfKQ9r8G*KYqrTwjUPD8ILPZIo2LaLaSw\n", "line 2: is not whsec_ followed by standard base64"),
        ("whsec_MfKQ9r8GKYqrTwjU\n", "line 1: decodes to 12 bytes"),
    ])
    func badSecretFiles(contents: String, reason: String) throws {
        let path = contents == "missing" ? folder + "/missing.secret" : file("bad.secret", contents)
        let message = try #require(problem(["SUBRECON_WEBHOOK_URL": "https://example.com/x", "SUBRECON_WEBHOOK_SECRET_FILE": path]))
        #expect(message.contains(path))
        #expect(message.contains("SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file"))
        #expect(message.contains(reason))
        #expect(!message.contains("MfKQ9r8G"))
    }

    @Test("bad URLs are refused naming the setting", arguments: [
        "http://example.com/x", "http://0.0.0.0:8080/x", "ftp://127.0.0.1/x", "not a url", "https://", "https://user:pw@example.com/",
    ])
    func badURLs(url: String) throws {
        let message = try #require(problem(["SUBRECON_WEBHOOK_URL": url, "SUBRECON_WEBHOOK_SECRET_FILE": secretFile]))
        #expect(message.hasPrefix("SUBRECON_WEBHOOK_URL / --webhook-url must be an https:// URL"))
    }

    @Test("bad numbers are refused naming the setting", arguments: [
        (["SUBRECON_WEBHOOK_CONCURRENCY": "0"], "SUBRECON_WEBHOOK_CONCURRENCY"),
        (["SUBRECON_WEBHOOK_CONCURRENCY": "257"], "SUBRECON_WEBHOOK_CONCURRENCY"),
        (["SUBRECON_WEBHOOK_CONCURRENCY": "many"], "SUBRECON_WEBHOOK_CONCURRENCY"),
        (["SUBRECON_WEBHOOK_TIMEOUT": "0"], "SUBRECON_WEBHOOK_TIMEOUT"),
        (["SUBRECON_WEBHOOK_TIMEOUT": "-1"], "SUBRECON_WEBHOOK_TIMEOUT"),
        (["SUBRECON_WEBHOOK_TIMEOUT": "x"], "SUBRECON_WEBHOOK_TIMEOUT"),
        (["SUBRECON_WEBHOOK_TIMEOUT": "nan"], "SUBRECON_WEBHOOK_TIMEOUT"),
        (["SUBRECON_WEBHOOK_TIMEOUT": "inf"], "SUBRECON_WEBHOOK_TIMEOUT"),
        (["SUBRECON_WEBHOOK_RETRY_SCHEDULE": "1,-2"], "SUBRECON_WEBHOOK_RETRY_SCHEDULE"),
        (["SUBRECON_WEBHOOK_RETRY_SCHEDULE": "a"], "SUBRECON_WEBHOOK_RETRY_SCHEDULE"),
    ])
    func badNumbers(environment: [String: String], setting: String) throws {
        let message = try #require(problem(environment))
        #expect(message.hasPrefix(setting))
    }

    @Test func flagNumbersAreCheckedToo() throws {
        #expect(try #require(problem([:], WebhookSettings.Flags(concurrency: 300))).contains("--webhook-concurrency"))
        #expect(try #require(problem([:], WebhookSettings.Flags(timeoutSeconds: 0))).contains("--webhook-timeout"))
    }

    // MARK: the apps file

    func appsFile(_ apps: String) throws(ConfigurationError) -> AppsFile {
        try AppsFile.parse(Data(#"{"apps": [\#(apps)]}"#.utf8), path: "apps.json")
    }

    @Test func eachAppOfTheAppsFileHasItsOwnEndpointOrNone() throws {
        let cookingSecret = file("cooking.secret", WebhookSecret.generate() + "\n")
        let file = try appsFile(
            """
            {"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_url": "https://news.example.com/hooks",
             "webhook_secret_file": "\(secretFile)"},
            {"bundle_id": "com.example.cooking", "shared_secret_file": "s", "webhook_url": "http://[::1]:8/x",
             "webhook_secret_file": "\(cookingSecret)"},
            {"bundle_id": "com.example.quiet", "shared_secret_file": "s"}
            """)
        #expect(file.apps[0].webhookURL == "https://news.example.com/hooks")
        #expect(file.apps[0].webhookSecretFile == secretFile)
        let settings = try resolve(["SUBRECON_WEBHOOK_CONCURRENCY": "4"], appsFile: file)
        #expect(settings.concurrency == 4)
        #expect(settings.endpoint(for: "com.example.news")?.url == "https://news.example.com/hooks")
        #expect(settings.endpoint(for: "com.example.news")?.secrets == [try WebhookSecret(text: secretText)])
        #expect(settings.endpoint(for: "com.example.cooking")?.secretFile == cookingSecret)
        #expect(settings.endpoint(for: "com.example.quiet") == nil)
        #expect(settings.endpoint(for: nil) == nil)
    }

    @Test func oneKeyWithoutTheOtherIsRefusedNamingTheApp() throws {
        #expect {
            try appsFile(#"{"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_url": "https://example.com/x"}"#)
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("com.example.news") && text.contains(#""webhook_url" needs "webhook_secret_file""#)
        }
        #expect {
            try appsFile(#"{"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_secret_file": "w"}"#)
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("com.example.news") && text.contains(#""webhook_secret_file" needs "webhook_url""#)
        }
        #expect {
            try appsFile(
                #"{"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_url": "http://10.0.0.2/x", "webhook_secret_file": "w"}"#)
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("com.example.news") && text.contains(#""webhook_url" must be an https:// URL"#)
        }
    }

    @Test func anAppsSecretFileIsReadAndCheckedNamingTheApp() throws {
        let bad = file("news.secret", "whsec_c2hvcnQ=\n")
        let file = try appsFile(
            #"{"bundle_id": "com.example.news", "shared_secret_file": "s", "webhook_url": "https://example.com/x", "webhook_secret_file": "\#(bad)"}"#)
        let message = try #require(problem([:], appsFile: file))
        #expect(message.contains(#""webhook_secret_file" of app com.example.news in the apps file apps.json"#))
        #expect(message.contains("line 1: decodes to 5 bytes"))
        #expect(!message.contains("c2hvcnQ"))
    }

    @Test func theSingleAppWebhookSettingsClashWithTheAppsFile() throws {
        let appsPath = file("apps.json", #"{"apps": [{"bundle_id": "com.example.news", "shared_secret_file": "s"}]}"#)
        for variable in ["SUBRECON_WEBHOOK_URL", "SUBRECON_WEBHOOK_SECRET_FILE"] {
            #expect {
                try AppsFile.resolve(environment: ["SUBRECON_APPS_FILE": appsPath, variable: "x"], flag: nil)
            } throws: { error in
                (error as? ConfigurationError)?.description.contains("\(variable) is set too") == true
            }
        }
        let file = try appsFile(#"{"bundle_id": "com.example.news", "shared_secret_file": "s"}"#)
        let message = try #require(problem([:], WebhookSettings.Flags(url: "https://example.com/x"), appsFile: file))
        #expect(message.contains("--webhook-url is given too"))
    }

    @Test func settingsResolveTheWebhooksAndRefuseABadOne() throws {
        let settings = try Settings.resolve(
            environment: Self.withSecret.merging(
                ["SUBRECON_WEBHOOK_URL": "http://localhost/x", "SUBRECON_WEBHOOK_SECRET_FILE": secretFile], uniquingKeysWith: { $1 }),
            flags: Settings.Flags())
        #expect(settings.webhooks.endpoint(for: nil)?.url == "http://localhost/x")
        var flags = Settings.Flags()
        flags.webhooks = WebhookSettings.Flags(url: "http://127.0.0.1/y", secretFile: secretFile)
        #expect(try Settings.resolve(environment: Self.withSecret, flags: flags).webhooks.endpoint(for: nil)?.url == "http://127.0.0.1/y")
        #expect(throws: ConfigurationError.self) {
            try Settings.resolve(environment: Self.withSecret.merging(["SUBRECON_WEBHOOK_TIMEOUT": "0"], uniquingKeysWith: { $1 }), flags: Settings.Flags())
        }
        #expect(try Settings.resolve(environment: Self.withSecret, flags: Settings.Flags()).webhooks.isConfigured == false)
    }

    @Test func aSecretFileOthersCanReadIsWarnedAbout() throws {
        let open = file("open.secret", secretText + "\n", mode: 0o644)
        var warnings: [String] = []
        _ = try WebhookSettings.resolve(
            environment: ["SUBRECON_WEBHOOK_URL": "https://example.com/x", "SUBRECON_WEBHOOK_SECRET_FILE": open], appsFile: nil,
            warnings: &warnings)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("chmod 600") == true)
    }
}
