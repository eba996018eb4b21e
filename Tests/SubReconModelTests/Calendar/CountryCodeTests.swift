import Foundation
@testable import SubReconModel
import Testing

@Suite("CountryCode")
struct CountryCodeTests {
    /// Debian's iso-codes (scripts/test.sh installs the package).
    static let isoCodesPath = "/usr/share/iso-codes/json/iso_3166-1.json"

    @Test func tableEqualsIsoCodesEntryForEntry() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.isoCodesPath))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(json["3166-1"] as? [[String: Any]])
        var expected: [String: String] = [:]
        for entry in entries {
            let alpha3 = try #require(entry["alpha_3"] as? String)
            expected[alpha3] = try #require(entry["alpha_2"] as? String)
        }
        #expect(expected.count == 249)
        #expect(CountryCode.iso3166 == expected)
        #expect(Set(CountryCode.appleTerritories.keys).isDisjoint(with: expected.keys))
    }

    @Test func caseInsensitive() {
        #expect(CountryCode.alpha2(alpha3: "USA") == "US")
        #expect(CountryCode.alpha2(alpha3: "gbr") == "GB")
        #expect(CountryCode.alpha2(alpha3: "Rus") == "RU")
        #expect(CountryCode.alpha2(alpha3: "ZZZ") == nil)
        #expect(CountryCode.alpha2(alpha3: "") == nil)
    }

    /// Every App Store territory maps: Apple's `TerritoryCode` values (App Store Connect API,
    /// https://developer.apple.com/documentation/appstoreconnectapi/territorycode). See
    /// `AppStoreTerritories.swift` for where the list was read.
    @Test func everyAppStoreTerritoryMaps() {
        for code in AppStoreTerritories.codes {
            let alpha2 = CountryCode.alpha2(alpha3: code)
            #expect(alpha2 != nil, "\(code) has no alpha-2 code")
            #expect(alpha2?.utf8.count == 2)
        }
        #expect(CountryCode.alpha2(alpha3: "XKS") == "XK")
    }
}
