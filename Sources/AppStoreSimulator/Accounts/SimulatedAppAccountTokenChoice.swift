/// How a `SimulatedSubscriber`'s `appAccountToken` is stored: the derived default apart, so an
/// account that keeps it keeps its receipt text (and every answer) as before tokens could be chosen.
enum SimulatedAppAccountTokenChoice: Codable, Sendable, Hashable {
    /// `ServerAPIIdentifiers.appAccountToken(subscriberID:)` of the account's id.
    case derived
    /// Bought without a token.
    case absent
    /// A token other than the derived one (lowercase).
    case chosen(String)

    /// The choice that gives `token` for an account with `subscriberID` (an empty one is none).
    init(_ token: String?, subscriberID: Int64) {
        guard let token, !token.isEmpty else {
            self = .absent
            return
        }
        self = token == ServerAPIIdentifiers.appAccountToken(subscriberID: subscriberID) ? .derived : .chosen(token)
    }
}
