import AppStoreSimulator

/// The simulator's seeded generator (SplitMix64), so every generated receipt and subscriber is
/// the same from one benchmark run to the next: the figures compare like with like.
struct BenchRandom: RandomNumberGenerator {
    private var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// A generator for item `index` of the stream `stream` (different streams don't overlap).
    init(stream: UInt64, index: Int64) {
        generator = SplitMix64(seed: SplitMix64.mix(stream &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: index)))
    }

    mutating func next() -> UInt64 { generator.next() }

    /// A uniform value in 0 ..< 1.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform whole number of milliseconds in `range`, rounded down to whole seconds
    /// (Apple's purchase and expiry times are whole seconds).
    mutating func milliseconds(in range: Range<Int64>) -> Int64 {
        let value = Int64.random(in: range, using: &self)
        return value - value % 1000
    }
}
