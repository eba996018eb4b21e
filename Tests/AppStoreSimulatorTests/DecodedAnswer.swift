import AppStoreSimulator
import Foundation

/// A verifyReceipt answer body parsed loosely for assertions. Transaction and renewal entries
/// keep only string values, which is also how the tests check Apple's "everything is a string" rule.
struct DecodedAnswer {
    struct Malformed: Error {}

    let object: [String: Any]
    let status: Int?
    let environment: String?
    let receipt: [String: Any]?
    let inApp: [[String: String]]
    let latestReceiptInfo: [[String: String]]?
    let pendingRenewalInfo: [[String: String]]?
    let latestReceipt: String?

    init(_ bytes: [UInt8]) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw Malformed()
        }
        self.object = object
        status = object["status"] as? Int
        environment = object["environment"] as? String
        receipt = object["receipt"] as? [String: Any]
        inApp = Self.stringEntries(receipt?["in_app"]) ?? []
        latestReceiptInfo = Self.stringEntries(object["latest_receipt_info"])
        pendingRenewalInfo = Self.stringEntries(object["pending_renewal_info"])
        latestReceipt = object["latest_receipt"] as? String
    }

    init(_ response: SimulatedHTTPResponse) throws {
        try self.init(response.body)
    }

    /// Whether `status` is a JSON number (not a string).
    var statusIsNumber: Bool {
        guard let raw = object["status"] else { return false }
        return !(raw is String)
    }

    private static func stringEntries(_ value: Any?) -> [[String: String]]? {
        guard let array = value as? [[String: Any]] else { return nil }
        return array.map { entry in entry.compactMapValues { $0 as? String } }
    }

    /// All raw entries of an array key, to check that every value is a string.
    func rawEntries(_ key: String) -> [[String: Any]] {
        (object[key] as? [[String: Any]]) ?? []
    }

    func transactions(originalTransactionID: String) -> [[String: String]] {
        (latestReceiptInfo ?? []).filter { $0["original_transaction_id"] == originalTransactionID }
    }

    /// `latest_receipt_info` sorted by `expires_date_ms` descending (newest first).
    var newestFirst: [[String: String]] {
        (latestReceiptInfo ?? []).sorted { ms($0["expires_date_ms"]) > ms($1["expires_date_ms"]) }
    }

    func renewal(originalTransactionID: String) -> [String: String]? {
        pendingRenewalInfo?.first { $0["original_transaction_id"] == originalTransactionID }
    }
}

func ms(_ value: String?) -> Int64 {
    value.flatMap { Int64($0) } ?? Int64.min
}
