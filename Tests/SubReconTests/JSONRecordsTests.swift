import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The PostgreSQL writer's rows travel as one JSON array: every value must come back as it went in.
@Suite struct JSONRecordsTests {
    @Test func everyValueSurvivesAJSONParser() throws {
        var records = JSONRecords(["id", "name", "note"])
        let awkward = "quote \" backslash \\ newline \n return \r tab \t bell \u{07} nul-free é 漢字 🎉 /"
        records.append([.integer(-9_223_372_036_854_775_808), .text(awkward), .null])
        records.append([.integer(42), .text(""), .text("plain")])
        #expect(records.count == 2)
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(records.json.utf8)) as? [[String: Any]])
        #expect(parsed.count == 2)
        #expect((parsed[0]["id"] as? NSNumber)?.int64Value == Int64.min)
        #expect(parsed[0]["name"] as? String == awkward)
        #expect(parsed[0]["note"] is NSNull)
        #expect((parsed[1]["id"] as? NSNumber)?.int64Value == 42)
        #expect(parsed[1]["name"] as? String == "")
        #expect(parsed[1]["note"] as? String == "plain")
    }

    @Test func noRecordsIsAnEmptyArray() {
        #expect(JSONRecords(["id"]).json == "[]")
    }
}
