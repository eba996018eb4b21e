/// App Store territories (storefronts), ISO 3166-1 alpha-3 as Apple's APIs send them: the test
/// fixture for "every storefront maps to an alpha-2 code".
///
/// Source: Apple, App Store Connect API, `TerritoryCode` ("The App Store territory codes"),
/// https://developer.apple.com/documentation/appstoreconnectapi/territorycode — its "Possible
/// Values", read (offline) from a mirrored copy of that page in the code search index, which showed
/// the values `ABW` through `TGO` (202 codes, `ANT` included). The copy was cut off there, so
/// `tail` is the rest of the App Store's territory list (THA … ZWE, Kosovo's `XKS` included) as
/// App Store Connect lists it, not read from that page: re-check it against the page when online.
enum AppStoreTerritories {
    static let codes = head + tail

    static let head = [
        "ABW", "AFG", "AGO", "AIA", "ALB", "AND", "ANT", "ARE", "ARG", "ARM", "ASM", "ATG", "AUS", "AUT",
        "AZE", "BDI", "BEL", "BEN", "BES", "BFA", "BGD", "BGR", "BHR", "BHS", "BIH", "BLR", "BLZ", "BMU",
        "BOL", "BRA", "BRB", "BRN", "BTN", "BWA", "CAF", "CAN", "CHE", "CHL", "CHN", "CIV", "CMR", "COD",
        "COG", "COK", "COL", "COM", "CPV", "CRI", "CUB", "CUW", "CXR", "CYM", "CYP", "CZE", "DEU", "DJI",
        "DMA", "DNK", "DOM", "DZA", "ECU", "EGY", "ERI", "ESP", "EST", "ETH", "FIN", "FJI", "FLK", "FRA",
        "FRO", "FSM", "GAB", "GBR", "GEO", "GGY", "GHA", "GIB", "GIN", "GLP", "GMB", "GNB", "GNQ", "GRC",
        "GRD", "GRL", "GTM", "GUF", "GUM", "GUY", "HKG", "HND", "HRV", "HTI", "HUN", "IDN", "IMN", "IND",
        "IRL", "IRQ", "ISL", "ISR", "ITA", "JAM", "JEY", "JOR", "JPN", "KAZ", "KEN", "KGZ", "KHM", "KIR",
        "KNA", "KOR", "KWT", "LAO", "LBN", "LBR", "LBY", "LCA", "LIE", "LKA", "LSO", "LTU", "LUX", "LVA",
        "MAC", "MAR", "MCO", "MDA", "MDG", "MDV", "MEX", "MHL", "MKD", "MLI", "MLT", "MMR", "MNE", "MNG",
        "MNP", "MOZ", "MRT", "MSR", "MTQ", "MUS", "MWI", "MYS", "MYT", "NAM", "NCL", "NER", "NFK", "NGA",
        "NIC", "NIU", "NLD", "NOR", "NPL", "NRU", "NZL", "OMN", "PAK", "PAN", "PER", "PHL", "PLW", "PNG",
        "POL", "PRI", "PRT", "PRY", "PSE", "PYF", "QAT", "REU", "ROU", "RUS", "RWA", "SAU", "SEN", "SGP",
        "SHN", "SLB", "SLE", "SLV", "SMR", "SOM", "SPM", "SRB", "SSD", "STP", "SUR", "SVK", "SVN", "SWE",
        "SWZ", "SXM", "SYC", "TCA", "TCD", "TGO",
    ]

    static let tail = [
        "THA", "TJK", "TKM", "TLS", "TON", "TTO", "TUN", "TUR", "TUV", "TWN", "TZA", "UGA", "UKR", "URY",
        "USA", "UZB", "VCT", "VEN", "VGB", "VIR", "VNM", "VUT", "WSM", "XKS", "YEM", "ZAF", "ZMB", "ZWE",
    ]
}
