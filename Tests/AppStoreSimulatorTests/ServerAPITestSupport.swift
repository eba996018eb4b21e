@testable import AppStoreSimulator
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SwiftASN1
import Testing
@_spi(FixedExpiryValidationTime) import X509

/// A GET with an optional bearer token (URLSession; subrecon itself uses libcurl).
func apiGet(_ url: String, bearer: String? = nil, timeout: TimeInterval = 10) async throws -> HTTPResult {
    try await apiRequest(url, method: "GET", bearer: bearer, timeout: timeout)
}

/// A request with an optional JSON body (POST) and bearer token.
func apiRequest(
    _ url: String, method: String, body: [UInt8]? = nil, bearer: String? = nil, timeout: TimeInterval = 10
) async throws -> HTTPResult {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    request.timeoutInterval = timeout
    if let body {
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let bearer {
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        headers["\(key)"] = "\(value)"
    }
    return HTTPResult(status: http.statusCode, headers: headers, body: Array(data))
}

func jsonObject(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

func base64URLDecode(_ text: Substring) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map(Array.init)
}

func base64URLEncode(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// A compact JWS taken apart, without trusting anything in it.
struct DecodedJWS {
    let header: [String: Any]
    let payload: [String: Any]
    let signingInput: [UInt8]
    let signature: [UInt8]
    /// DER of each `x5c` entry (standard base64 with padding).
    let x5c: [[UInt8]]

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        header = try jsonObject(try #require(base64URLDecode(parts[0])))
        payload = try jsonObject(try #require(base64URLDecode(parts[1])))
        signature = try #require(base64URLDecode(parts[2]))
        signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        let chain = try #require(header["x5c"] as? [String])
        x5c = try chain.map { try #require(Data(base64Encoded: $0)).map { $0 } }
    }

    func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(signature, for: signingInput)
    }

    /// Whether the signature verifies with the key of `x5c[0]`.
    var isSignedByLeaf: Bool {
        guard let leaf = try? Certificate(derEncoded: x5c[0]), let key = P256.Signing.PublicKey(leaf.publicKey) else {
            return false
        }
        return isSigned(by: key)
    }

    func certificate(_ index: Int) throws -> Certificate {
        try Certificate(derEncoded: x5c[index])
    }

    var signedDate: Date {
        Date(timeIntervalSince1970: Double((payload["signedDate"] as? NSNumber)?.int64Value ?? 0) / 1000)
    }

    /// Whether `x5c[0]` chains through `x5c[1]` to `root` (never `x5c[2]`) at `signedDate`.
    func chainsTo(root rootDER: [UInt8]) async throws -> Bool {
        let root = try Certificate(derEncoded: rootDER)
        var verifier = Verifier(rootCertificates: CertificateStore([root])) {
            RFC5280Policy(fixedExpiryValidationTime: signedDate)
        }
        let result = await verifier.validate(
            leaf: try certificate(0), intermediates: CertificateStore([try certificate(1)]))
        if case .validCertificate = result { return true }
        return false
    }
}

/// An App Store Server API bearer token (ES256, raw R||S) with chosen claims; a nil `keyID` or
/// `issuer` and `withIssuedAt: false` leave that member out (Apple's own library sends no `iat`).
func makeBearer(
    key: P256.Signing.PrivateKey, bundleID: String = SimulatedProducts.bundleID,
    issuedAt: Int64 = Int64(Date().timeIntervalSince1970) - 60, lifetime: Int64 = 1800,
    audience: String = "appstoreconnect-v1", withIssuedAt: Bool = true,
    keyID: String? = "2X9R4HXF34", issuer: String? = "57246542-96fe-1a63-e053-0824d011072a"
) throws -> String {
    let header = #"{"alg":"ES256","# + (keyID.map { #""kid":"\#($0)","# } ?? "") + #""typ":"JWT"}"#
    var members: [String] = []
    if let issuer { members.append(#""iss":"\#(issuer)""#) }
    if withIssuedAt { members.append(#""iat":\#(issuedAt)"#) }
    members += [#""exp":\#(issuedAt + lifetime)"#, #""aud":"\#(audience)""#, #""bid":"\#(bundleID)""#]
    let claims = "{" + members.joined(separator: ",") + "}"
    let input = base64URLEncode(Array(header.utf8)) + "." + base64URLEncode(Array(claims.utf8))
    let signature = try key.signature(for: Array(input.utf8))
    return input + "." + base64URLEncode(signature.rawRepresentation)
}

/// The original transaction id of `slot` of subscriber `id`.
func originalID(_ id: Int64, slot: Int = 0) -> Int64 {
    SimulatedIdentifiers.transactionID(subscriberID: id, slot: slot, index: 0)
}

extension AppStoreSimulator {
    func statusesURL(_ transactionID: Int64, _ environment: SimulatedEnvironment = .production) -> String {
        (environment == .production ? serverAPIProductionBaseURL : serverAPISandboxBaseURL)
            + "/inApps/v1/subscriptions/\(transactionID)"
    }

    func historyURL(_ transactionID: Int64, _ environment: SimulatedEnvironment = .production, revision: String? = nil) -> String {
        let base = (environment == .production ? serverAPIProductionBaseURL : serverAPISandboxBaseURL)
            + "/inApps/v2/history/\(transactionID)"
        guard let revision else { return base }
        return base + "?revision=" + (revision.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? revision)
    }

    func serverAPIURL(_ path: String, _ environment: SimulatedEnvironment = .production) -> String {
        (environment == .production ? serverAPIProductionBaseURL : serverAPISandboxBaseURL) + path
    }

    func transactionInfoURL(_ transactionID: Int64, _ environment: SimulatedEnvironment = .production) -> String {
        serverAPIURL("/inApps/v1/transactions/\(transactionID)", environment)
    }

    func orderLookupURL(_ orderID: String, _ environment: SimulatedEnvironment = .production) -> String {
        serverAPIURL("/inApps/v1/lookup/" + orderID, environment)
    }

    func testNotificationURL(_ environment: SimulatedEnvironment = .production) -> String {
        serverAPIURL("/inApps/v1/notifications/test", environment)
    }

    func testNotificationStatusURL(_ token: String, _ environment: SimulatedEnvironment = .production) -> String {
        serverAPIURL("/inApps/v1/notifications/test/" + token, environment)
    }

    var leafPublicKey: P256.Signing.PublicKey {
        try! P256.Signing.PublicKey(x963Representation: signingAuthority.leafPublicKeyX963)
    }
}

/// Apple's `errorCode` of an error answer (nil when the body is not Apple's error JSON).
func appleErrorCode(_ result: HTTPResult) -> Int? {
    (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])?["errorCode"] as? Int
}

/// Apple's status code for the state names the scenarios use.
func appleStatusCode(_ state: String) -> Int {
    switch state {
    case "active": 1
    case "expired": 2
    case "billing_retry": 3
    case "grace_period": 4
    case "refunded": 5
    default: 0
    }
}

/// `lastTransactions` of a StatusResponse, flattened, with the group each came from.
func lastTransactions(_ body: [String: Any]) throws -> [(group: String, item: [String: Any])] {
    let data = try #require(body["data"] as? [[String: Any]])
    var items: [(String, [String: Any])] = []
    for group in data {
        let id = try #require(group["subscriptionGroupIdentifier"] as? String)
        for item in try #require(group["lastTransactions"] as? [[String: Any]]) {
            items.append((id, item))
        }
    }
    return items
}
