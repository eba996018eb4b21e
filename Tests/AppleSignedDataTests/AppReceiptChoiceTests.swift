import Testing
@testable import AppleSignedData

/// `transactionIDToAsk(products:)`: a subscription of one of our products first, else any id (Get
/// All Subscription Statuses takes any transaction id of the customer).
@Suite struct AppReceiptChoiceTests {
    static let monthly = "com.example.pro.monthly"
    static let news = "com.example.news.monthly"

    static func record(
        _ product: String?, _ transaction: String?, _ original: String?, expires: String? = "2026-01-01T00:00:00Z"
    ) -> AppReceiptPurchase {
        AppReceiptPurchase(productID: product, transactionID: transaction, originalTransactionID: original, expiresDate: expires)
    }

    static let cases: [(name: String, purchases: [AppReceiptPurchase], products: Set<String>, expected: String?)] = [
        ("no in-app record", [], [], nil),
        ("one subscription", [record(monthly, "12", "10")], [monthly], "10"),
        ("empty product set means any", [record(news, "22", "20")], [], "20"),
        ("our subscription over an earlier consumable",
         [record("coins", "5", "5", expires: nil), record(monthly, "12", "10")], [monthly], "10"),
        ("our subscription over an earlier foreign one",
         [record(news, "22", "20"), record(monthly, "12", "10")], [monthly], "10"),
        ("empty expiry is not a subscription",
         [record(monthly, "5", "5", expires: ""), record(news, "22", "20")], [monthly], "5"),
        ("first of two matching subscriptions",
         [record(monthly, "12", "10"), record(monthly, "32", "30")], [monthly], "10"),
        ("foreign subscription only: any 1705", [record(news, "22", "20")], [monthly], "20"),
        ("consumable only: its 1705", [record("coins", "5", "4", expires: nil)], [monthly], "4"),
        ("no 1705 anywhere: any 1703", [record(monthly, "12", nil), record(news, "22", nil)], [monthly], "12"),
        ("matching subscription without 1705 loses to another 1705",
         [record(monthly, "12", nil), record(news, "22", "20")], [monthly], "20"),
        ("records without ids", [record(monthly, nil, nil)], [monthly], nil),
        ("implausible ids are skipped",
         [record(monthly, "1/../x", "../../admin"), record(news, "", "21")], [monthly], "21"),
        ("too long an id is skipped",
         [record(monthly, "7", String(repeating: "9", count: 65))], [monthly], "7"),
        ("Xcode's zero id", [record(monthly, "0", "0")], [monthly], "0"),
    ]

    @Test(arguments: cases.indices)
    func choice(index: Int) {
        let c = Self.cases[index]
        let contents = AppReceiptContents(bundleID: "com.example.app", purchases: c.purchases)
        #expect(contents.transactionIDToAsk(products: c.products) == c.expected, "\(c.name)")
    }
}
