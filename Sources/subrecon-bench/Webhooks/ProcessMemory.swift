import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This process's memory, for the peak RSS of one phase rather than of the whole run (filling the
/// outbox is not delivering it).
enum ProcessMemory {
    private static var own: ChildProcess { ChildProcess(pid: getpid(), executable: CommandLine.arguments[0]) }

    /// Resets VmHWM to the current RSS (`5` into `/proc/self/clear_refs`, Linux ≥ 4.0); returns
    /// that RSS, in KB.
    @discardableResult
    static func resetPeak() -> Int? {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return own.residentKilobytesNow()
    }

    /// VmHWM: the peak RSS since the last `resetPeak()`, in KB.
    static func peakKilobytes() -> Int? { own.peakRSSKilobytesSoFar() }
}
