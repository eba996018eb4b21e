/// The App Store storefront (country) an account buys in; it decides the currency Apple charges
/// in. Raw values are Apple's `storefront` (ISO 3166-1 alpha-3).
public enum SimulatedStorefront: String, Codable, Sendable, Hashable, CaseIterable {
    case usa = "USA"
    case deu = "DEU"
    case fra = "FRA"
    case gbr = "GBR"
    case jpn = "JPN"

    /// The ISO 4217 currency of the storefront's prices (`currency` in signed transactions).
    public var currency: String {
        switch self {
        case .usa: "USD"
        case .deu, .fra: "EUR"
        case .gbr: "GBP"
        case .jpn: "JPY"
        }
    }

    /// The ISO 3166-1 alpha-2 code of the storefront's country (Sales and Trends reports' Country Code).
    public var alpha2: String {
        switch self {
        case .usa: "US"
        case .deu: "DE"
        case .fra: "FR"
        case .gbr: "GB"
        case .jpn: "JP"
        }
    }

    /// Decimal places of `currency` (ISO 4217 minor units): how reports write its amounts.
    public var currencyMinorDigits: Int {
        switch self {
        case .jpn: 0
        case .usa, .deu, .fra, .gbr: 2
        }
    }

    /// Apple's numeric storefront id (`storefrontId`).
    public var storefrontID: String {
        switch self {
        case .usa: "143441"
        case .fra: "143442"
        case .deu: "143443"
        case .gbr: "143444"
        case .jpn: "143462"
        }
    }
}
