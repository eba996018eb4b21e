/// `in_app_ownership_type`: whether the receipt's owner bought the subscription or gets it via Family Sharing.
public enum SimulatedOwnership: String, Codable, Sendable, Hashable, CaseIterable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}
