import Foundation

/// Set App Account Token: `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`
/// with `{"appAccountToken":"<UUID>"}`. Checks, in order:
/// 1. the id is not a positive decimal number → 400 `4000006`;
/// 2. the body is not a JSON object whose `appAccountToken` is a UUID (either case) → 400
///    `4000183` (InvalidAppAccountTokenUUIDError);
/// 3. no known account of the app has the id in this environment at "now" → 404 `4040005`
///    (OriginalTransactionIdNotFoundError); an account Apple lost answers as for the other
///    endpoints (`liveAccount`);
/// 4. the id is not an original transaction id (a renewal's) → 400 `4000187`;
/// 5. the account's purchases are shared through Family Sharing → 400 `4000185`;
/// 6. else the token is recorded (lowercase) and the answer is 200 with an empty body, as Apple's.
///
/// The simulator keeps one token per account: from then on every signed transaction of the
/// account carries it, in every endpoint and in notifications, and verifyReceipt's
/// `app_account_token` shows it too. (Apple applies it to the subscription's current and later
/// transactions only.)
extension ServerAPIResponder {
    static let invalidAppAccountToken = error(
        400, 4_000_183, "Invalid request. The app account token field must be a valid UUID.")
    static let originalTransactionNotFound = error(404, 4_040_005, "Original transaction id not found.")
    static let notOriginalTransactionID = error(
        400, 4_000_187, "Invalid request. The transaction ID provided is not an original transaction ID.")
    static let familyTransactionNotSupported = error(
        400, 4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")

    func setAppAccountToken(_ route: ServerAPIRoute, app: Int, body: [UInt8], nowMs: Int64) -> SimulatedHTTPResponse {
        guard let originalTransactionID = Self.transactionID(route.parameter) else {
            return Self.error(400, 4_000_006, "Invalid transaction id.")
        }
        guard let token = Self.appAccountToken(inRequestBody: body) else {
            return Self.invalidAppAccountToken
        }
        let subscriber: SimulatedSubscriber, reference: SimulatedAccountRegistry.Reference
        switch liveAccount(for: route, app: app, nowMs: nowMs, notFound: Self.originalTransactionNotFound) {
        case .found(let account, let position): (subscriber, reference) = (account, position)
        case .refused(let refusal): return refusal
        }
        guard reference.index == 0 else { return Self.notOriginalTransactionID }
        guard subscriber.ownership != .familyShared else { return Self.familyTransactionNotSupported }
        registry.record(AppAccountTokenSet(
            bundleID: apps.apps[app].bundleID, environment: route.environment,
            originalTransactionID: originalTransactionID, subscriberID: subscriber.id, appAccountToken: token, atMs: nowMs))
        return SimulatedHTTPResponse(httpStatus: 200, headers: [:], body: [], appleStatus: nil)
    }

    /// The `appAccountToken` of an `UpdateAppAccountTokenRequest` body, lowercase; nil when the
    /// body is not a JSON object or the field is missing or not a UUID.
    static func appAccountToken(inRequestBody body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let token = object["appAccountToken"] as? String,
              token.utf8.count == 36, UUID(uuidString: token) != nil
        else { return nil }
        return token.lowercased()
    }
}
