import AppleSignedData
import Foundation
import SubReconModel
import SubReconStore

/// What `apple-reports fetch` needs: a team App Store Connect API key, the vendor number the
/// reports belong to, and the API's base URL. `apple-reports import` and `report apple-parity`
/// need only the vendor number, and only to check a file's name.
public struct AppStoreConnectSettings: Sendable {
    public static let defaultURL = "https://api.appstoreconnect.apple.com"

    public var key: AppStoreConnectKey
    public var vendorNumber: String
    public var baseURL: String

    public init(key: AppStoreConnectKey, vendorNumber: String, baseURL: String = AppStoreConnectSettings.defaultURL) {
        self.key = key
        self.vendorNumber = vendorNumber
        self.baseURL = baseURL
    }

    /// The flags, each overriding its `SUBRECON_…` variable.
    public struct Flags: Sendable {
        public var keyFile: String?
        public var keyID: String?
        public var issuerID: String?
        public var vendorNumber: String?
        public var url: String?

        public init(keyFile: String? = nil, keyID: String? = nil, issuerID: String? = nil, vendorNumber: String? = nil, url: String? = nil) {
            self.keyFile = keyFile
            self.keyID = keyID
            self.issuerID = issuerID
            self.vendorNumber = vendorNumber
            self.url = url
        }
    }

    /// Everything `fetch` needs, or a configuration error naming every missing setting.
    public static func resolve(
        environment: [String: String], flags: Flags, warnings: inout [String]
    ) throws(ConfigurationError) -> AppStoreConnectSettings {
        func value(_ flag: String?, _ variable: String) -> String? {
            (flag ?? Settings.nonEmpty(environment[variable]))?.trimmingCharacters(in: .whitespaces)
        }
        let keyFile = value(flags.keyFile, "SUBRECON_ASC_KEY_FILE")
        let keyID = value(flags.keyID, "SUBRECON_ASC_KEY_ID")
        let issuerID = value(flags.issuerID, "SUBRECON_ASC_ISSUER_ID")
        let vendor = try vendorNumber(environment: environment, flag: flags.vendorNumber)
        var missing: [String] = []
        if keyFile == nil { missing.append("SUBRECON_ASC_KEY_FILE / --asc-key-file") }
        if keyID == nil { missing.append("SUBRECON_ASC_KEY_ID / --asc-key-id") }
        if issuerID == nil { missing.append("SUBRECON_ASC_ISSUER_ID / --asc-issuer-id") }
        if vendor == nil { missing.append("SUBRECON_VENDOR_NUMBER / --vendor-number") }
        guard let keyFile, let keyID, let issuerID, let vendor else {
            throw .other(
                "downloading Apple's sales reports needs " + missing.joined(separator: ", ")
                    + " (a team App Store Connect API key with the Sales or Finance role, its key ID, the issuer ID, "
                    + "and the vendor number from Payments and Financial Reports)")
        }
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            let reason = FileManager.default.fileExists(atPath: keyFile) ? "permission denied or not UTF-8" : "no such file"
            throw .other("cannot read the App Store Connect key file \(keyFile) (SUBRECON_ASC_KEY_FILE / --asc-key-file): \(reason)")
        }
        if let warning = SecretFile.readableByOthersWarning(keyFile, what: "the App Store Connect key file") { warnings.append(warning) }
        let key: AppStoreConnectKey
        do {
            key = try AppStoreConnectKey(privateKeyPEM: pem, keyID: keyID, issuerID: issuerID)
        } catch {
            throw .other("the App Store Connect key file \(keyFile) (SUBRECON_ASC_KEY_FILE): \(error.description)")
        }
        let url = value(flags.url, "SUBRECON_ASC_URL") ?? defaultURL
        try Settings.checkURL(url, setting: "SUBRECON_ASC_URL / --asc-url")
        return AppStoreConnectSettings(key: key, vendorNumber: vendor, baseURL: url)
    }

    /// `SUBRECON_VENDOR_NUMBER` / `--vendor-number`, when set: digits and letters only (it goes
    /// into a URL and a file-name check).
    public static func vendorNumber(environment: [String: String], flag: String?) throws(ConfigurationError) -> String? {
        guard let text = (flag ?? Settings.nonEmpty(environment["SUBRECON_VENDOR_NUMBER"]))?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        guard !text.isEmpty, text.count <= 32, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else {
            throw .invalidNumber(
                setting: "SUBRECON_VENDOR_NUMBER / --vendor-number", value: text,
                expected: "the vendor number from App Store Connect's Payments and Financial Reports (digits)")
        }
        return text
    }
}
