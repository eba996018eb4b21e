import SubReconModel

/// The App Store Server API's base URLs and the paths subrecon calls.
public struct ServerAPIEndpoints: Sendable, Equatable {
    public var production: String
    public var sandbox: String

    /// Apple's recommended hosts (App Store Server API changelog, "Server update", 2026-05-05). The
    /// earlier `api.storekit.itunes.apple.com` and `api.storekit-sandbox.itunes.apple.com` still
    /// answer, and SUBRECON_API_URL / SUBRECON_API_SANDBOX_URL may name them.
    public static let apple = ServerAPIEndpoints(
        production: "https://api.storekit.apple.com", sandbox: "https://api.storekit-sandbox.apple.com")

    /// The hosts Apple recommended before.
    public static let appleEarlierHosts = ServerAPIEndpoints(
        production: "https://api.storekit.itunes.apple.com", sandbox: "https://api.storekit-sandbox.itunes.apple.com")

    public init(production: String, sandbox: String) {
        self.production = Self.trimmed(production)
        self.sandbox = Self.trimmed(sandbox)
    }

    public func base(for environment: ReceiptEnvironment) -> String {
        environment == .production ? production : sandbox
    }

    /// Get All Subscription Statuses (no `status` filter: expired and revoked entries count too).
    public func subscriptionStatuses(_ transactionID: String, environment: ReceiptEnvironment) -> String {
        base(for: environment) + "/inApps/v1/subscriptions/" + transactionID
    }

    /// Set App Account Token (PUT, body `{"appAccountToken": UUID}`).
    public func setAppAccountToken(_ originalTransactionID: String, environment: ReceiptEnvironment) -> String {
        base(for: environment) + "/inApps/v1/transactions/" + originalTransactionID + "/appAccountToken"
    }

    /// Get Transaction History v2, continuing after `revision` when given.
    public func transactionHistory(_ transactionID: String, revision: String?, environment: ReceiptEnvironment) -> String {
        var url = base(for: environment) + "/inApps/v2/history/" + transactionID
        if let revision { url += "?revision=" + Self.percentEncoded(revision) }
        return url
    }

    /// Get Notification History (POST, body `{"startDate": ms, "endDate": ms}`), continuing at
    /// `paginationToken` when given.
    public func notificationHistory(paginationToken: String?, environment: ReceiptEnvironment) -> String {
        var url = base(for: environment) + "/inApps/v1/notifications/history"
        if let paginationToken { url += "?paginationToken=" + Self.percentEncoded(paginationToken) }
        return url
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// RFC 3986 unreserved characters pass; everything else is %XX (revisions are opaque tokens).
    package static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
