import Foundation
import Logging
import SubReconModel

/// Shows how far a run is. On a terminal: one live line on stderr (done/total, rate, ETA,
/// failures), redrawn at most every 200 ms and cleared at the end. Off a terminal (cron, logs):
/// a plain log line every `interval`, never a control character.
public final class ProgressReporter: RunObserver, @unchecked Sendable {
    private let lock = NSLock()
    private let isTerminal: Bool
    private let interval: Double
    private let logger: Logger
    private let write: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    private var total = 0
    private var done = 0
    private var failed = 0
    private var startedAt = 0.0
    private var lastShown = 0.0
    private var lineShown = false

    /// - Parameters:
    ///   - isTerminal: draw a live line (true) or log periodically (false).
    ///   - interval: seconds between log lines off a terminal.
    public init(
        isTerminal: Bool, interval: Double = 30, logger: Logger,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.isTerminal = isTerminal
        self.interval = interval
        self.logger = logger
        self.write = write
        self.now = now
    }

    /// Whether stderr is a terminal.
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    public func runStarted(receiptsTotal: Int, runID: Int64?) {
        lock.withLock {
            total = receiptsTotal
            startedAt = now()
            lastShown = startedAt
        }
    }

    public func receiptFinished(_ update: ReceiptUpdate) {
        let line: String? = lock.withLock {
            done += 1
            if update.runItem.outcome == .failed { failed += 1 }
            let t = now()
            let due = isTerminal ? t - lastShown >= 0.2 || done == total : t - lastShown >= interval
            guard due else { return nil }
            lastShown = t
            return describe(at: t)
        }
        guard let line else { return }
        if isTerminal {
            lock.withLock { lineShown = true }
            write("\r\u{1B}[2K" + line)
        } else {
            logger.notice("progress: \(line)")
        }
    }

    public func runFinished(_ summary: RunSummary) {
        let clear = lock.withLock { () -> Bool in
            defer { lineShown = false }
            return isTerminal && lineShown
        }
        if clear { write("\r\u{1B}[2K") }
    }

    /// `1200/20000 receipts (6%), 410/s, ETA 41s, 3 failed`
    func describe(at t: Double) -> String {
        let elapsed = max(t - startedAt, 0.001)
        let rate = Double(done) / elapsed
        var text = "\(done)/\(total) receipts"
        if total > 0 { text += " (\(done * 100 / total)%)" }
        text += ", \(Int(rate.rounded()))/s"
        if rate > 0, total > done { text += ", ETA \(Self.duration(Double(total - done) / rate))" }
        text += ", \(failed) failed"
        return text
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(String(format: "%02d", s % 60))s" }
        return "\(s / 3600)h\(String(format: "%02d", s % 3600 / 60))m"
    }
}
