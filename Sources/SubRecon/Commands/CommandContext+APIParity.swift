import Foundation
import SubReconModel

/// The parity CSV could not be written (exit 73).
public struct APIParityOutputFailure: OperatorFacingError {
    public var reason: String

    public var exitStatus: ExitStatus { .cannotCreateOutput }
    public var description: String { "cannot write the parity CSV: \(reason)" }
}

extension APIParityCheck.Result {
    /// `parity: 120 receipts, 130 subscriptions compared, 2 differing (3 fields)`, for stderr; when
    /// nothing was compared, why.
    public var summaryLine: String {
        guard receiptsCompared > 0 else {
            let stored = receiptsStored ?? 0
            if stored == 0 {
                return "parity: 0 receipts compared: no receipt is stored (subrecon import stores the app server's receipts)"
            }
            if comparedAll {
                return "parity: 0 receipts compared of \(stored) stored"
            }
            let noun = stored == 1 ? "receipt is" : "receipts are"
            return "parity: 0 receipts compared: none is due (\(stored) \(noun) stored, all checked recently, "
                + "e.g. by last night's run); subrecon parity --all compares every stored receipt"
        }
        return "parity: \(receiptsCompared) receipts, \(subscriptionsCompared) subscriptions compared, "
            + "\(subscriptionsDiffering) differing (\(differences.count) fields)"
    }

    /// 0 when receipts were compared and nothing differs; 1 when something does, or when nothing
    /// was compared (no evidence either way, which a script must not take for parity).
    public var exitStatus: ExitStatus { differences.isEmpty && receiptsCompared > 0 ? .success : .incomplete }
}

extension CommandContext {
    /// `subrecon parity`: both Apple APIs asked about the same due receipts (every stored receipt
    /// with `all`), nothing written; the CSV of every differing field to `outputPath` (atomically)
    /// or standard output.
    public func parity(limit: Int?, all: Bool = false, outputPath: String?, flags: Settings.Flags) async throws
        -> APIParityCheck.Result
    {
        var flags = flags
        flags.requireBothAPIs = true
        let settings = try settings(flags)
        let store = try await openStore(settings.database)
        let job = LiveWiring(settings: settings, store: store, clock: clock, logger: logger)
        let result = try await job.parity(limit: limit, all: all)
        func writeCSV(_ handle: FileHandle) throws {
            var csv = CSVWriter(fileHandle: handle)
            try csv.writeRow(APIParityDifference.csvHeader)
            for difference in result.differences { try csv.writeRow(difference.csvFields) }
            try csv.finish()
        }
        do {
            if let outputPath {
                try await AtomicFile.write(to: outputPath, writeCSV)
            } else {
                try writeCSV(output.standardOutput)
            }
        } catch {
            throw APIParityOutputFailure(reason: "\(error)")
        }
        return result
    }
}
