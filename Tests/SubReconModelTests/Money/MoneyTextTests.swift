@testable import SubReconModel
import Testing

@Suite("MoneyText")
struct MoneyTextTests {
    @Test("milliunits to decimal text, rounded once, halves to even", arguments: [
        (Int64(9990), "USD", "9.99"),
        (1_200_000, "JPY", "1200"),
        (1250, "KWD", "1.250"),
        (-49_990, "USD", "-49.99"),
        (0, "USD", "0.00"),
        (0, "JPY", "0"),
        (5, "USD", "0.00"),  // 0.5 cent → 0
        (15, "USD", "0.02"),  // 1.5 → 2
        (25, "USD", "0.02"),  // 2.5 → 2
        (35, "USD", "0.04"),  // 3.5 → 4
        (-15, "USD", "-0.02"),
        (-25, "USD", "-0.02"),
        (-35, "USD", "-0.04"),
        (-4, "USD", "0.00"),  // never "-0.00"
        (-5, "USD", "0.00"),  // −0.5 cent → −0 → 0
        (-6, "USD", "-0.01"),
        (500, "JPY", "0"),  // ½ yen → 0
        (1500, "JPY", "2"),
        (2500, "JPY", "2"),
        (-500, "JPY", "0"),  // never "-0"
        (-1500, "JPY", "-2"),
        (1, "KWD", "0.001"),
        (-1, "KWD", "-0.001"),
        (9990, "CLF", "9.9900"),
        (-1, "CLF", "-0.0010"),
        (9990, "", "9.99"),
        (9990, "ZZZ", "9.99"),
        (9990, "usd", "9.99"),
        (1_000_000_000, "JPY", "1000000"),
        (123_456_789, "USD", "123456.79"),
        (Int64.max, "USD", "9223372036854775.81"),
        (Int64.min, "USD", "-9223372036854775.81"),
        (Int64.max, "KWD", "9223372036854775.807"),
    ])
    func text(milliunits: Int64, currency: String, expected: String) {
        #expect(MoneyText.text(milliunits: milliunits, currency: currency) == expected)
    }

    @Test func wideSumsPrintExactly() {
        // 4 × Int64.max milliunits = 36893488147419103228 → 3689348814741910322.8 cents → …323
        #expect(MoneyText.text(milliunits: WideInteger(Int64.max, times: 4), currency: "USD") == "36893488147419103.23")
        #expect(MoneyText.text(milliunits: -WideInteger(Int64.max, times: 4), currency: "JPY") == "-36893488147419103")
    }
}
