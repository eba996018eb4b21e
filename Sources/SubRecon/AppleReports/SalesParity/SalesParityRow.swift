import SubReconModel

/// One row of `report apple-parity`.
public struct SalesParityRow: Sendable, Equatable {
    /// The CSV columns, in order (`ReportKind` in main reads this).
    public static let columns = [
        "day", "product_id", "country", "currency", "price_milliunits", "kind", "apple_units", "ledger_units",
        "difference", "status",
    ]

    public var key: SalesParityKey
    public var appleUnits: Int64
    public var ledgerUnits: Int64
    /// `apple_units − ledger_units`.
    public var difference: Int64
    public var status: SalesParityStatus
    /// Units of |difference| cancelled against the same key on a nearby day (0…|difference|).
    public var shiftedUnits: Int64

    public init(key: SalesParityKey, appleUnits: Int64, ledgerUnits: Int64, status: SalesParityStatus, shiftedUnits: Int64 = 0) {
        self.key = key
        self.appleUnits = appleUnits
        self.ledgerUnits = ledgerUnits
        self.difference = appleUnits - ledgerUnits
        self.status = status
        self.shiftedUnits = shiftedUnits
    }

    /// The units no shift explains (0 for `match` and `shifted`).
    public var unexplainedUnits: Int64 { Int64(clamping: difference.magnitude) - shiftedUnits }

    public var csvFields: [String] {
        [
            key.day.text, key.productID, key.country, key.currency, String(key.priceMilliunits), key.kind.rawValue,
            String(appleUnits), String(ledgerUnits), String(difference), status.rawValue,
        ]
    }
}
