import Foundation

/// The decoded request body of a verifyReceipt call.
struct VerifyReceiptRequest: Sendable {
    var receiptData: String
    var password: String?
    var excludeOldTransactions: Bool

    /// Nil when the body is not a JSON object with a string `receipt-data` (Apple answers 21000).
    init?(body: [UInt8]) {
        if let object = FlatJSONObjectScanner.scan(body) {
            guard case .string(let receiptData)? = object["receipt-data"] else { return nil }
            self.receiptData = receiptData
            if case .string(let password)? = object["password"] { self.password = password }
            // A real JSON boolean, per Apple; a string "true" is not honoured.
            self.excludeOldTransactions = object["exclude-old-transactions"] == .bool(true)
            return
        }
        // Shapes the fast scanner leaves alone (numbers, nested values, \u escapes, invalid JSON).
        guard !body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let receiptData = object["receipt-data"] as? String
        else { return nil }
        self.receiptData = receiptData
        self.password = object["password"] as? String
        if let flag = object["exclude-old-transactions"], !(flag is String) {
            self.excludeOldTransactions = (flag as? Bool) ?? false
        } else {
            self.excludeOldTransactions = false
        }
    }
}
