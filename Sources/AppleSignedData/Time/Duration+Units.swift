/// `Duration` in the plain units the rest of the code hands to clocks, NIO and metrics. Lives
/// beside the wall clock in the lowest target every part of subrecon and the simulator share.
extension Duration {
    /// Whole nanoseconds (attoseconds below one nanosecond are dropped).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Seconds as a floating-point number (for rates and metrics).
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
