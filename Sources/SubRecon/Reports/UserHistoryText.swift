import Foundation
import SubReconModel
import SubReconStore

/// `subrecon user USER_ID --history` as support reads it (an aligned table, oldest first) or as
/// tools read it (`--json`).
public enum UserHistoryText {
    public static func text(_ history: UserHistory) -> String {
        let out = "user \(history.userID): history as stored (Apple was not asked)\n"
        guard !history.events.isEmpty else { return out + "(nothing recorded yet: no run has verified this user's receipts)\n" }
        let header = ["at", "event", "original_transaction_id", "by", "what"]
        let rows = history.events.map { event in
            [
                ISO8601.string(fromMilliseconds: event.atMs), event.kind.rawValue, event.originalTransactionID ?? "",
                event.source, event.detail,
            ]
        }
        return out + TextTable.render([header] + rows)
    }

    public static func json(_ histories: [UserHistory]) throws -> String {
        let payload: [[String: Any]] = histories.map { history in
            [
                "user_id": history.userID,
                "events": history.events.map { event -> [String: Any] in
                    var object: [String: Any] = [
                        "at": ISO8601.string(fromMilliseconds: event.atMs), "at_ms": event.atMs,
                        "event": event.kind.rawValue, "by": event.source, "what": event.detail,
                    ]
                    object["original_transaction_id"] = event.originalTransactionID
                    return object
                },
            ]
        }
        let data = try JSONSerialization.data(
            withJSONObject: payload.count == 1 ? payload[0] as Any : payload as Any, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
