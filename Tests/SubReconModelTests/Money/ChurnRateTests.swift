@testable import SubReconModel
import Testing

@Suite("ChurnRate")
struct ChurnRateTests {
    @Test("four decimals, halves to even", arguments: [
        (Int64(1), Int64(3), "0.3333" as String?),
        (2, 3, "0.6667"),
        (1, 8, "0.1250"),
        (1, 16, "0.0625"),
        (1, 32, "0.0312"),  // 312.5 ten-thousandths → 312
        (3, 32, "0.0938"),  // 937.5 → 938
        (1, 20_000, "0.0000"),  // 0.5 → 0
        (3, 20_000, "0.0002"),  // 1.5 → 2
        (5, 20_000, "0.0002"),  // 2.5 → 2
        (0, 5, "0.0000"),
        (5, 5, "1.0000"),
        (1, 2, "0.5000"),
        (0, 0, nil),
        (3, 0, nil),
        (Int64.max, Int64.max, "1.0000"),
    ])
    func rate(churned: Int64, before: Int64, expected: String?) {
        #expect(ChurnRate.text(churned: churned, activePaidBefore: before) == expected)
    }
}
