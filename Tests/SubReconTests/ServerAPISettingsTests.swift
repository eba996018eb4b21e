import Crypto
import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// `SUBRECON_APPLE_API=server-api`: what must be set, what is refused, what is never printed.
@Suite("Server API settings")
struct ServerAPISettingsTests {
    let folder: String
    let keyPEM: String
    let keyPath: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-api-settings-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        keyPEM = P256.Signing.PrivateKey().pemRepresentation
        keyPath = folder + "/AuthKey_TEST.p8"
        _ = FileManager.default.createFile(atPath: keyPath, contents: Data(keyPEM.utf8), attributes: [.posixPermissions: 0o600])
    }

    var complete: [String: String] {
        [
            "SUBRECON_APPLE_API": "server-api", "SUBRECON_API_KEY_FILE": keyPath, "SUBRECON_API_KEY_ID": "2X9R4HXF34",
            "SUBRECON_API_ISSUER_ID": "57246542-96fe-1a63-e053-0824d011072a", "SUBRECON_BUNDLE_ID": "com.example.app",
        ]
    }

    @Test func serverAPIModeNeedsNoSharedSecretAndUsesTheDefaults() throws {
        let settings = try Settings.resolve(environment: complete, flags: Settings.Flags())
        #expect(settings.appleAPI == .serverAPI)
        #expect(settings.sharedSecret == nil)
        let api = try #require(settings.serverAPI)
        #expect(api.bundleID == "com.example.app")
        #expect(api.requestsPerSecond == 40)
        #expect(api.endpoints == .apple)
        // Apple's recommended hosts since 2026-05-05; the earlier ones still answer and may be set.
        #expect(api.endpoints.production == "https://api.storekit.apple.com")
        #expect(api.endpoints.sandbox == "https://api.storekit-sandbox.apple.com")
        #expect(settings.warnings.isEmpty)
        var earlier = complete
        earlier["SUBRECON_API_URL"] = ServerAPIEndpoints.appleEarlierHosts.production
        earlier["SUBRECON_API_SANDBOX_URL"] = ServerAPIEndpoints.appleEarlierHosts.sandbox
        let old = try #require(try Settings.resolve(environment: earlier, flags: Settings.Flags()).serverAPI)
        #expect(old.endpoints == .appleEarlierHosts)
    }

    @Test(arguments: ["SUBRECON_API_KEY_FILE", "SUBRECON_API_KEY_ID", "SUBRECON_API_ISSUER_ID", "SUBRECON_BUNDLE_ID"])
    func eachMissingSettingIsAConfigurationErrorNamingIt(variable: String) {
        var environment = complete
        environment[variable] = nil
        #expect {
            try Settings.resolve(environment: environment, flags: Settings.Flags())
        } throws: { error in
            (error as? ConfigurationError)?.description.contains(variable) == true
        }
    }

    @Test func aKeyFileThatIsNotAKeyIsRefusedWithoutEchoingIt() throws {
        let bogus = "-----BEGIN PRIVATE KEY-----\nTk9UQUtFWVNFQ1JFVENPTlRFTlQ=\n-----END PRIVATE KEY-----\n"
        try bogus.write(toFile: keyPath, atomically: true, encoding: .utf8)
        do {
            _ = try Settings.resolve(environment: complete, flags: Settings.Flags())
            Issue.record("a bad key was accepted")
        } catch {
            #expect(error.description.contains(keyPath))
            #expect(!error.description.contains("Tk9UQUtFWVNFQ1JFVENPTlRFTlQ"))
        }
    }

    @Test func aKeyFileOthersCanReadIsWarnedAbout() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        let settings = try Settings.resolve(environment: complete, flags: Settings.Flags())
        #expect(settings.warnings.contains { $0.contains("chmod 600") })
        #expect(!settings.warnings.joined().contains(keyPEM.split(separator: "\n")[1]))
    }

    @Test(arguments: ["-1", "fast", "20000"])
    func aBadRateIsRefused(rate: String) {
        var environment = complete
        environment["SUBRECON_API_RATE"] = rate
        #expect(throws: ConfigurationError.self) { try Settings.resolve(environment: environment, flags: Settings.Flags()) }
    }

    @Test func anUnknownAPIIsRefused() {
        #expect(throws: ConfigurationError.self) {
            try Settings.resolve(environment: ["SUBRECON_APPLE_API": "storekit"], flags: Settings.Flags())
        }
    }

    @Test func verifyReceiptModeNeedsNoKey() throws {
        let settings = try Settings.resolve(environment: ["SUBRECON_SHARED_SECRET": "s3cr3t"], flags: Settings.Flags())
        #expect(settings.appleAPI == .verifyReceipt)
        #expect(settings.serverAPI == nil)
    }

    @Test func aRootFileThatIsNotPEMIsRefused() throws {
        var environment = complete
        let rootPath = folder + "/root.pem"
        try "not a certificate".write(toFile: rootPath, atomically: true, encoding: .utf8)
        environment["SUBRECON_APPLE_ROOT_CA_FILE"] = rootPath
        #expect(throws: ConfigurationError.self) { try Settings.resolve(environment: environment, flags: Settings.Flags()) }
    }
}
