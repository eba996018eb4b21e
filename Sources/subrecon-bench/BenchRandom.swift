/// A small seeded generator (SplitMix64), so every generated receipt and subscriber is the same
/// from one benchmark run to the next: the figures compare like with like.
struct BenchRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for item `index` of the stream `stream` (different streams don't overlap).
    init(stream: UInt64, index: Int64) {
        var mixer = BenchRandom(seed: stream &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: index))
        state = mixer.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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
