import SubReconModel

/// What happened to one user, as the store recorded it (`subrecon user USER_ID --history`): the
/// changes to their subscriptions, the periods Apple billed them (and refunds of those) and the
/// App Store notifications about them, oldest first. Read without asking Apple.
public struct UserHistory: Sendable, Equatable {
    /// One thing that happened, at `atMs`.
    public struct Event: Sendable, Equatable {
        public enum Kind: String, Sendable {
            /// A row of `subscription_changes`.
            case change
            /// A billed period (a row of `renewals`), at its purchase date.
            case billed
            /// A billed period's refund or revocation, at its cancellation date.
            case refunded
            /// An App Store Server Notification, at Apple's signedDate.
            case notification
        }

        public var atMs: Int64
        public var kind: Kind
        public var originalTransactionID: String?
        /// What happened, in support's words.
        public var detail: String
        /// Who recorded it: `nightly run 12`, `user run 13`, `notification UUID`, `Apple`, `receiver` ….
        public var source: String
    }

    public var userID: String
    /// Whether anything at all is stored for the user (receipts, tokens or history rows).
    public var known: Bool
    public var events: [Event]
}

extension SubscriptionStore {
    /// The user's history, read from one snapshot (both stores run the same SQL).
    public func history(ofUser userID: String) async throws -> UserHistory {
        try await withReadSnapshot { db in
            var events: [UserHistory.Event] = []
            try await db.forEachRow(UserHistorySQL.changes, [.text(userID)]) { row in
                events.append(try .change(row))
            }
            try await db.forEachRow(UserHistorySQL.periods, [.text(userID)]) { row in
                events.append(contentsOf: try UserHistory.Event.period(row))
            }
            try await db.forEachRow(UserHistorySQL.notifications, [.text(userID)]) { row in
                events.append(try .notification(row))
            }
            let stored = try await db.integer(UserHistorySQL.known, [.text(userID), .text(userID)]) ?? 0
            // A stable order for events at the same instant: Apple's billing, then what a run or a
            // notification made of it.
            let order: [UserHistory.Event.Kind] = [.billed, .refunded, .notification, .change]
            let sorted = events.enumerated().sorted { a, b in
                (a.element.atMs, order.firstIndex(of: a.element.kind) ?? 0, a.offset)
                    < (b.element.atMs, order.firstIndex(of: b.element.kind) ?? 0, b.offset)
            }.map(\.element)
            return UserHistory(userID: userID, known: stored > 0 || !events.isEmpty, events: sorted)
        }
    }
}

extension UserHistory.Event {
    fileprivate static func change(_ row: any QueryRow) throws -> Self {
        let change = try row.requiredText("change")
        let (oldStatus, newStatus) = (try row.text("old_status"), try row.requiredText("new_status"))
        let (oldProduct, newProduct) = (try row.text("old_product_id"), try row.requiredText("new_product_id"))
        let newExpires = try row.requiredInteger("new_expires_date_ms")
        var detail = "\(change): " + (oldStatus.map { $0 == newStatus ? newStatus : "\($0) → \(newStatus)" } ?? newStatus)
        if let oldProduct, oldProduct != newProduct { detail += ", \(oldProduct) → \(newProduct)" } else { detail += ", \(newProduct)" }
        let oldExpires = try row.integer("old_expires_date_ms")
        if let oldExpires, oldExpires != newExpires {
            detail += ", expires \(ISO8601.string(fromMilliseconds: oldExpires)) → \(ISO8601.string(fromMilliseconds: newExpires))"
        } else {
            detail += ", expires \(ISO8601.string(fromMilliseconds: newExpires))"
        }
        let source: String =
            if let run = try row.integer("run_id") {
                "\(try row.text("run_kind") ?? "") run \(run)".trimmingCharacters(in: .whitespaces)
            } else {
                "notification \(try row.text("notification_uuid") ?? "")"
            }
        return Self(
            atMs: try row.requiredInteger("recorded_at"), kind: .change,
            originalTransactionID: try row.requiredText("original_transaction_id"), detail: detail, source: source)
    }

    /// A billed period, and its refund when Apple cancelled it.
    fileprivate static func period(_ row: any QueryRow) throws -> [Self] {
        let otid = try row.requiredText("original_transaction_id")
        let transaction = try row.requiredText("transaction_id")
        let currency = try row.text("currency")
        func money(_ column: String) throws -> String? {
            guard let milliunits = try row.integer(column), let currency else { return nil }
            return "\(MoneyText.text(milliunits: milliunits, currency: currency)) \(currency)"
        }
        var detail = "transaction \(transaction), \(try row.requiredText("product_id")), until "
            + ISO8601.string(fromMilliseconds: try row.requiredInteger("expires_date_ms"))
        if try row.flag("is_trial_period") == true { detail += ", free trial" } else if let price = try money("price_milliunits") {
            detail += ", \(price)"
        }
        // A period stored without its purchase date (older receipts) is placed when it was first seen.
        let billed = Self(
            atMs: try row.integer("purchase_date_ms") ?? row.requiredInteger("first_seen_at"), kind: .billed,
            originalTransactionID: otid, detail: detail, source: "Apple")
        guard let cancelled = try row.integer("cancellation_date_ms") else { return [billed] }
        let refund = try money("refund_milliunits").map { ", refund \($0)" } ?? ""
        return [
            billed,
            Self(
                atMs: cancelled, kind: .refunded, originalTransactionID: otid,
                detail: "transaction \(transaction) refunded or revoked\(refund)", source: "Apple"),
        ]
    }

    fileprivate static func notification(_ row: any QueryRow) throws -> Self {
        let type = try row.requiredText("notification_type")
        let subtype = try row.text("subtype").map { " \($0)" } ?? ""
        let deliveries = try row.integer("deliveries") ?? 1
        let detail = "\(type)\(subtype) (\(try row.requiredText("notification_uuid"))): \(try row.requiredText("outcome"))"
            + (deliveries > 1 ? ", delivered \(deliveries) times" : "")
        return Self(
            atMs: try row.requiredInteger("signed_date"), kind: .notification,
            originalTransactionID: try row.text("original_transaction_id"), detail: detail,
            source: try row.requiredText("source"))
    }
}
