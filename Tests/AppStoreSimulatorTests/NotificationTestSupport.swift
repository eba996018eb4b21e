@testable import AppStoreSimulator
import Foundation
import Testing

/// A POST of a JSON body with an optional bearer token (URLSession; subrecon itself uses libcurl).
func apiPost(_ url: String, json: [String: Any], bearer: String? = nil) async throws -> HTTPResult {
    try await apiPost(url, body: Array(try JSONSerialization.data(withJSONObject: json)), bearer: bearer)
}

func apiPost(_ url: String, body: [UInt8], bearer: String? = nil) async throws -> HTTPResult {
    try await apiRequest(url, method: "POST", body: body, bearer: bearer)
}

/// A notification's JWS and the JWSs nested in its `data`, taken apart without trusting them.
struct DecodedNotification {
    let outer: DecodedJWS
    let data: [String: Any]
    let transaction: DecodedJWS?
    let renewal: DecodedJWS?

    init(_ signedPayload: String) throws {
        outer = try DecodedJWS(signedPayload)
        data = try #require(outer.payload["data"] as? [String: Any])
        transaction = try (data["signedTransactionInfo"] as? String).map(DecodedJWS.init)
        renewal = try (data["signedRenewalInfo"] as? String).map(DecodedJWS.init)
    }

    /// From a body `{"signedPayload":"…"}`.
    init(body: String) throws {
        let object = try jsonObject(Array(body.utf8))
        #expect(object.count == 1, "the body holds only signedPayload")
        try self.init(try #require(object["signedPayload"] as? String))
    }

    var type: String? { outer.payload["notificationType"] as? String }
    var subtype: String? { outer.payload["subtype"] as? String }
    var uuid: String? { outer.payload["notificationUUID"] as? String }
    var signedDateMs: Int64? { (outer.payload["signedDate"] as? NSNumber)?.int64Value }
    var status: Int? { (data["status"] as? NSNumber)?.intValue }
}

/// A decoded JSON object written again with sorted keys, to compare two payloads field for field
/// (NSDictionary equality on Linux tells a decoded `true` from a decoded `1`).
func canonicalJSON(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

/// "TYPE" or "TYPE/SUBTYPE", for comparing event lists in one line.
func eventName(_ notification: SimulatedNotification) -> String {
    notification.type.rawValue + (notification.subtype.map { "/" + $0.rawValue } ?? "")
}
