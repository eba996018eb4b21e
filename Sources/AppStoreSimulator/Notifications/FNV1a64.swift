/// 64-bit FNV-1a over a sequence of fields (each followed by a separator), for stable
/// fingerprints that do not depend on Swift's per-process hash seed.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0x1F)
    }

    mutating func add(_ number: Int64) {
        add(String(number))
    }

    private mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}
