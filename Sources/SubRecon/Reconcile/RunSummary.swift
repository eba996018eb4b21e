import Foundation
import SubReconModel
import SubReconAppStore

/// What a run did, for the summary line, the exit code and the tests.
public struct RunSummary: Sendable, Equatable {
    /// nil for a dry run (nothing recorded).
    public var runID: Int64?
    public var kind: RunKind
    public var receiptsTotal: Int
    public var counts: [RunItemOutcome: Int]
    /// Set when Apple's answer stopped the run (21004, 21000).
    public var stoppedBy: RunStoppingProblem?
    public var status: RunStatus
    public var startedAtMs: Int64
    public var finishedAtMs: Int64
    /// Why the run ended before every selected receipt was verified (signal, circuit breaker).
    public var endedEarly: String?
    /// Selected receipts the run never started; they keep their next due time (so with `.due` they
    /// stay due, with `.all` most are not due at all).
    public var notReached: Int
    /// Which receipts the run was asked to verify: says what happens to those it did not reach.
    public var selection: ReceiptSelection
    /// App Store Server API runs: requests sent, 429s received, the rate reached (every app's together).
    public var serverAPI: APIRateLimiter.Figures?
    /// With several apps: the apps Apple stopped (their work stopped; the others' completed).
    public var stoppedApps: [String]
    /// The signal (SIGINT, SIGTERM) that stopped the run, if one did.
    public var signal: Int32?

    public init(
        runID: Int64?, kind: RunKind, receiptsTotal: Int, counts: [RunItemOutcome: Int], stoppedBy: RunStoppingProblem?,
        status: RunStatus, startedAtMs: Int64, finishedAtMs: Int64, endedEarly: String? = nil, notReached: Int = 0,
        stoppedApps: [String] = [], signal: Int32? = nil, selection: ReceiptSelection = .due
    ) {
        self.signal = signal
        self.selection = selection
        self.stoppedApps = stoppedApps
        self.runID = runID
        self.kind = kind
        self.receiptsTotal = receiptsTotal
        self.counts = counts
        self.stoppedBy = stoppedBy
        self.status = status
        self.startedAtMs = startedAtMs
        self.finishedAtMs = finishedAtMs
        self.endedEarly = endedEarly
        self.notReached = notReached
    }

    public func count(_ outcome: RunItemOutcome) -> Int { counts[outcome, default: 0] }

    /// The contract's exit codes: 2 when Apple stopped the run, 130 / 143 (128 + the signal) when
    /// SIGINT / SIGTERM did, 1 when some receipt got no usable answer, 0 when every receipt got a
    /// definitive one.
    public var exitStatus: ExitStatus {
        if stoppedBy != nil { return .configuration }
        if let signal, let stopped = ExitStatus.stopped(by: signal) { return stopped }
        if count(.failed) > 0 || count(.skipped) > 0 || endedEarly != nil || notReached > 0 || status == .interrupted {
            return .incomplete
        }
        return .success
    }

    /// `exitStatus` as a number, as the `runs` table and the metrics keep it.
    public var exitCode: Int32 { exitStatus.rawValue }

    /// What becomes of the receipts an early end left out: only a run of the due receipts leaves
    /// them due; `run --all` and `user` were checking receipts that need not be due at all.
    var notReachedText: String {
        switch selection {
        case .due, .duePreview:
            "\(notReached) not reached, still due"
        case .all:
            "\(notReached) not reached: not checked this time; the nightly run checks each when it falls due, "
                + "and run --all again reaches them all"
        case .user:
            "\(notReached) of the user's receipts not reached: subrecon user again checks them"
        }
    }

    /// One line for logs and cron mail.
    public var line: String {
        let seconds = Double(finishedAtMs - startedAtMs) / 1000
        var text = "\(kind.rawValue) run\(runID.map { " \($0)" } ?? " (dry run)") \(status.rawValue): "
            + "\(receiptsTotal) receipts, "
            + RunItemOutcome.allCases.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
            + ", \(String(format: "%.1f", seconds)) s, exit \(exitCode)"
        if let stoppedBy {
            text += stoppedApps.isEmpty
                ? " (stopped: Apple answered \(stoppedBy.appleStatus))"
                : " (stopped for \(stoppedApps.joined(separator: ", ")): Apple answered \(stoppedBy.appleStatus); the other apps' work went on)"
        }
        if let endedEarly { text += " (ended early: \(endedEarly); \(notReachedText))" }
        if let api = serverAPI {
            text += "; Server API: \(api.requests) requests, \(api.rateLimited) answered 429"
            if let rate = api.achievedRate { text += ", \(String(format: "%.1f", rate))/s" }
        }
        return text
    }
}
