extension Array where Element == UInt8 {
    /// Appends `value` in decimal (a leading `-` when negative); shared by the JSON writer and
    /// the receipt's account text, both of which write numbers straight into bytes.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; filled from the end, then copied in one go.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}
