@testable import AppStoreSimulator
import Foundation
import Testing

@Suite struct VerifyReceiptRequestTests {
    @Test func fastScannerReadsFlatObjects() {
        let body = Array(#" { "receipt-data" : "YWJj\/ZA==", "password":"s\"e\\c\n", "exclude-old-transactions": true , "x": null } "#.utf8)
        let object = FlatJSONObjectScanner.scan(body)
        #expect(object?["receipt-data"] == .string("YWJj/ZA=="))
        #expect(object?["password"] == .string("s\"e\\c\n"))
        #expect(object?["exclude-old-transactions"] == .bool(true))
        #expect(object?["x"] == .null)
        #expect(FlatJSONObjectScanner.scan(Array(#"{}"#.utf8)) == [:])
        #expect(FlatJSONObjectScanner.scan(Array(#"{"a":"é"}"#.utf8))?["a"] == .string("é"))
    }

    @Test(arguments: [
        #"{"a":1}"#, #"{"a":[1]}"#, #"{"a":"\u0041"}"#, #"{"a":"x"} trailing"#, #"{"a":"x",}"#, #"{"a":"x""#,
        #"{"a":"x","a":"y"}"#, #"{"a":tru}"#, "{\"a\":\"line\nbreak\"}", #"["a"]"#, "",
    ])
    func fastScannerLeavesEverythingElseToJSONSerialization(text: String) {
        #expect(FlatJSONObjectScanner.scan(Array(text.utf8)) == nil)
    }

    @Test func requestFieldsFromEitherPath() throws {
        let fast = try #require(VerifyReceiptRequest(body: requestBody("abc/def", password: "pw", excludeOld: true)))
        #expect(fast.receiptData == "abc/def")
        #expect(fast.password == "pw")
        #expect(fast.excludeOldTransactions)
        // Numbers and \u escapes go through JSONSerialization with the same meaning.
        let slow = try #require(VerifyReceiptRequest(body: Array(#"{"receipt-data":"abc\u002fdef","exclude-old-transactions":false,"n":1}"#.utf8)))
        #expect(slow.receiptData == "abc/def")
        #expect(slow.password == nil)
        #expect(!slow.excludeOldTransactions)
        // The flag must be a real boolean.
        let stringFlag = try #require(VerifyReceiptRequest(body: Array(#"{"receipt-data":"a","exclude-old-transactions":"true"}"#.utf8)))
        #expect(!stringFlag.excludeOldTransactions)
        #expect(VerifyReceiptRequest(body: Array(#"{"receipt-data":null}"#.utf8)) == nil)
        #expect(VerifyReceiptRequest(body: Array(#"{"receipt-data":"a","n":}"#.utf8)) == nil)
    }
}
