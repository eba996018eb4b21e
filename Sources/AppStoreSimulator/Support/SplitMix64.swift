/// A tiny seeded random generator, so padding, shuffles and fault selection are
/// deterministic (the same receipt always gets the same answer at the same time). Public so the
/// benchmark generates its data with the same generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public init(seed: Int64) {
        state = UInt64(bitPattern: seed)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A well-mixed hash of one value, for stateless per-id decisions.
    public static func mix(_ value: UInt64) -> UInt64 {
        var generator = SplitMix64(seed: value)
        return generator.next()
    }
}
