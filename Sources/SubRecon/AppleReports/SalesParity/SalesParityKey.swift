import SubReconModel

/// One row's key in `report apple-parity`: `(day, product_id, country, currency, price_milliunits,
/// kind)`, ordered as the contract sorts rows (strings bytewise, the price numerically).
public struct SalesParityKey: Sendable, Hashable, Comparable {
    /// The Pacific-time day.
    public var day: CalendarDay
    public var productID: String
    /// ISO 3166-1 alpha-2; empty when the ledger's storefront is unknown.
    public var country: String
    public var currency: String
    /// Per unit, never negative (refunds are keyed by the amount given back).
    public var priceMilliunits: Int64
    public var kind: SalesParityKind

    public init(
        day: CalendarDay, productID: String, country: String, currency: String, priceMilliunits: Int64,
        kind: SalesParityKind
    ) {
        self.day = day
        self.productID = productID
        self.country = country
        self.currency = currency
        self.priceMilliunits = priceMilliunits
        self.kind = kind
    }

    /// The key on another day: what a day-boundary shift is looked for under.
    func on(_ day: CalendarDay) -> SalesParityKey {
        var copy = self
        copy.day = day
        return copy
    }

    public static func < (lhs: SalesParityKey, rhs: SalesParityKey) -> Bool {
        if lhs.day != rhs.day { return lhs.day < rhs.day }
        if lhs.productID != rhs.productID { return bytewise(lhs.productID, rhs.productID) }
        if lhs.country != rhs.country { return bytewise(lhs.country, rhs.country) }
        if lhs.currency != rhs.currency { return bytewise(lhs.currency, rhs.currency) }
        if lhs.priceMilliunits != rhs.priceMilliunits { return lhs.priceMilliunits < rhs.priceMilliunits }
        return bytewise(lhs.kind.rawValue, rhs.kind.rawValue)
    }

    /// UTF-8 byte order (Swift's own `String <` follows Unicode canonical equivalence instead).
    static func bytewise(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
