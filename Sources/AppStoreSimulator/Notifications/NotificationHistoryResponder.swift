import Foundation

/// Get Notification History's pure core: a `NotificationHistoryRequest` body (and the
/// `paginationToken` query parameter) → a page of the simulator's notification log for one
/// environment, or Apple's error. The bearer check and the rate limit are the router's, as for
/// the other Server API endpoints.
///
/// Checks, in order (each 400 with Apple's JSON error body):
/// 1. the body is a JSON object → else `4000000`;
/// 2. `startDate` / `endDate` are integers → else `4000015` / `4000016`;
/// 3. `startDate` is before `endDate` → else `4000013`;
/// 4. `startDate` is within the retention (180 days in production, 30 in the sandbox) → else `4000012`;
/// 5. not both `transactionId` and `notificationType` → else `4000019`;
/// 6. a known `notificationType`, and a `notificationSubtype` only with a type that has it → else `4000018`;
/// 7. `transactionId` is a positive decimal id → else `4000006`;
/// 8. `paginationToken`, when given, is one this endpoint made for the same filters → else `4000014`.
///
/// `startDate` is in, `endDate` out; a future `endDate` counts as now (in). Notifications are served by `signedDate` (then by first
/// recording), at most `pageSize` a page; `transactionId` selects every notification of the
/// customer that id belongs to; `onlyFailures` those never delivered successfully. Each app
/// (the bearer token's) sees only its own notifications.
struct NotificationHistoryResponder: Sendable {
    let log: SimulatedNotificationLog
    let pageSize: Int

    static let productionRetentionMs: Int64 = 180 * SimulatedProducts.dayMs
    static let sandboxRetentionMs: Int64 = 30 * SimulatedProducts.dayMs

    /// The filters of one request, parsed.
    struct Filters: Sendable, Hashable {
        var startMs: Int64
        var endMs: Int64
        var type: SimulatedNotificationType?
        var subtype: SimulatedNotificationSubtype?
        var transactionID: Int64?
        var onlyFailures: Bool

        /// Ties a pagination token to the request it was made for (Apple: "the same body").
        var fingerprint: UInt64 {
            var hash = FNV1a64()
            hash.add(startMs)
            hash.add(endMs)
            hash.add(type?.rawValue ?? "")
            hash.add(subtype?.rawValue ?? "")
            hash.add(transactionID ?? 0)
            hash.add(onlyFailures ? "1" : "0")
            return hash.value
        }
    }

    /// Position in the history: after the notification with this `signedDate` and sequence.
    struct PageToken: Sendable, Hashable {
        var signedDateMs: Int64
        var sequence: Int64
        var fingerprint: UInt64

        /// The opaque `paginationToken`: base64url of `n1.<signedDate>.<sequence>.<fingerprint hex>`.
        var text: String {
            Base64URL.encodeString(Array("n1.\(signedDateMs).\(sequence).\(String(fingerprint, radix: 16))".utf8))
        }

        init(signedDateMs: Int64, sequence: Int64, fingerprint: UInt64) {
            self.signedDateMs = signedDateMs
            self.sequence = sequence
            self.fingerprint = fingerprint
        }

        /// Parses a `paginationToken` (nil when it is not one of ours).
        init?(text: String) {
            guard let bytes = Base64URL.decode(text) else { return nil }
            let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0] == "n1", let date = Int64(parts[1]), let sequence = Int64(parts[2]),
                  let fingerprint = UInt64(parts[3], radix: 16)
            else { return nil }
            self.init(signedDateMs: date, sequence: sequence, fingerprint: fingerprint)
        }

        func precedes(_ entry: NotificationHistoryEntry) -> Bool {
            (signedDateMs, sequence) < (entry.notification.signedDateMs, entry.sequence)
        }
    }

    /// A page for the app `bundleID` (nil: for every app).
    func respond(
        body: [UInt8], query: Substring?, environment: SimulatedEnvironment, bundleID: String? = nil, nowMs: Int64
    ) -> SimulatedHTTPResponse {
        let filters: Filters
        switch Self.parse(body: body, environment: environment, nowMs: nowMs) {
        case .success(let parsed): filters = parsed
        case .failure(let error): return error.response
        }
        var token = PageToken(signedDateMs: .min, sequence: .min, fingerprint: filters.fingerprint)
        if let text = ServerAPIResponder.queryValue("paginationToken", in: query), !text.isEmpty {
            guard let given = PageToken(text: text), given.fingerprint == filters.fingerprint else {
                return ServerAPIResponder.error(400, 4_000_014, "Invalid pagination token.")
            }
            token = given
        }
        // A future end counts as now, and what was signed at now is in.
        let endMs = min(filters.endMs, nowMs + 1)
        let customer = filters.transactionID.flatMap(SimulatedAccountRegistry.parse(transactionID:))?.subscriberKey
        let matching = log.entries { entry in
            let notification = entry.notification
            guard notification.environment == environment, bundleID.map({ $0 == notification.bundleID }) ?? true,
                  notification.signedDateMs >= filters.startMs, notification.signedDateMs < endMs
            else { return false }
            if let type = filters.type, notification.type != type { return false }
            if let subtype = filters.subtype, notification.subtype != subtype { return false }
            if filters.transactionID != nil {
                guard let customer, let id = notification.subscriberID,
                      SimulatedAccountRegistry.key(id) == customer
                else { return false }
            }
            return !filters.onlyFailures || !entry.wasDelivered
        }
        let remaining = matching.drop { !token.precedes($0) }
        let page = remaining.prefix(max(1, pageSize))
        if let last = page.last {
            token = PageToken(
                signedDateMs: last.notification.signedDateMs, sequence: last.sequence, fingerprint: filters.fingerprint)
        }
        return SimulatedHTTPResponse(
            httpStatus: 200, headers: ServerAPIResponder.jsonHeaders,
            body: Self.body(page: page, hasMore: remaining.count > page.count, token: token), appleStatus: nil)
    }

    /// `NotificationHistoryResponse`.
    private static func body(
        page: ArraySlice<NotificationHistoryEntry>, hasMore: Bool, token: PageToken
    ) -> [UInt8] {
        var json = JSONByteWriter(capacity: 512 + 9000 * page.count)
        json.beginObject()
        json.field("paginationToken", token.text)
        json.key("hasMore")
        json.bool(hasMore)
        json.key("notificationHistory")
        json.beginArray()
        for entry in page {
            json.beginObject()
            writeSendAttempts(entry.sendAttempts, to: &json)
            json.key("signedPayload")
            json.unescapedString { $0.append(contentsOf: entry.notification.signedPayload.utf8) }
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// `"sendAttempts":[{"attemptDate":ms,"sendAttemptResult":"SUCCESS"},…]`, oldest first (also
    /// Get Test Notification Status's).
    static func writeSendAttempts(_ attempts: [NotificationSendAttempt], to json: inout JSONByteWriter) {
        json.key("sendAttempts")
        json.beginArray()
        for attempt in attempts {
            json.beginObject()
            json.field("attemptDate", number: attempt.attemptDateMs)
            json.field("sendAttemptResult", attempt.result.rawValue)
            json.endObject()
        }
        json.endArray()
    }

    /// An Apple error answer as a failure value.
    struct RequestError: Error {
        let response: SimulatedHTTPResponse

        init(_ code: Int64, _ message: String) {
            response = ServerAPIResponder.error(400, code, message)
        }
    }

    static func parse(body: [UInt8], environment: SimulatedEnvironment, nowMs: Int64) -> Result<Filters, RequestError> {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(RequestError(4_000_000, "Invalid request body."))
        }
        guard let startMs = integer(object["startDate"]) else {
            return .failure(RequestError(4_000_015, "Invalid request start date."))
        }
        guard let endMs = integer(object["endDate"]) else {
            return .failure(RequestError(4_000_016, "Invalid request end date."))
        }
        guard startMs < endMs else {
            return .failure(RequestError(4_000_013, "Start date must be before end date."))
        }
        let retentionMs = environment == .production ? productionRetentionMs : sandboxRetentionMs
        guard startMs >= nowMs - retentionMs else {
            return .failure(RequestError(4_000_012, "Start date is too far in the past."))
        }
        let typeText = object["notificationType"]
        let subtypeText = object["notificationSubtype"]
        let transactionText = object["transactionId"]
        if transactionText != nil, typeText != nil {
            return .failure(RequestError(
                4_000_019, "Invalid request: only one of transactionId and notificationType may be provided."))
        }
        var type: SimulatedNotificationType?
        var subtype: SimulatedNotificationSubtype?
        if let typeText {
            type = (typeText as? String).flatMap(SimulatedNotificationType.init(rawValue:))
            guard type != nil else { return .failure(RequestError(4_000_018, "Invalid notification type.")) }
        }
        if let subtypeText {
            subtype = (subtypeText as? String).flatMap(SimulatedNotificationSubtype.init(rawValue:))
            guard let subtype, let type, type.allowedSubtypes.contains(subtype) else {
                return .failure(RequestError(4_000_018, "Invalid notification type or subtype."))
            }
        }
        var transactionID: Int64?
        if let transactionText {
            transactionID = (transactionText as? String).flatMap { ServerAPIResponder.transactionID(Substring($0)) }
            guard transactionID != nil else { return .failure(RequestError(4_000_006, "Invalid transaction id.")) }
        }
        var onlyFailures = false
        if let flag = object["onlyFailures"] {
            guard let value = flag as? Bool else {
                return .failure(RequestError(4_000_000, "Invalid onlyFailures."))
            }
            onlyFailures = value
        }
        return .success(Filters(
            startMs: startMs, endMs: endMs, type: type, subtype: subtype, transactionID: transactionID,
            onlyFailures: onlyFailures))
    }

    /// A JSON integer (not a boolean, not a fraction).
    private static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double.rounded(.towardZero) == double, abs(double) < 9e15 else { return nil }
        return number.int64Value
    }
}
