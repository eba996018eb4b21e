import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// The parity CSV could not be written (exit 73).
public struct ParityOutputFailure: OperatorFacingError {
    public var reason: String

    public var exitStatus: ExitStatus { .cannotCreateOutput }
    public var description: String { "cannot write the parity CSV: \(reason)" }
}

extension ParityCheck.Result {
    /// `parity: 120 receipts, 130 subscriptions compared, 2 differing (3 fields)`, for stderr.
    public var summaryLine: String {
        "parity: \(receiptsCompared) receipts, \(subscriptionsCompared) subscriptions compared, "
            + "\(subscriptionsDiffering) differing (\(differences.count) fields)"
    }

    /// 0 when nothing differs, 1 when something does.
    public var exitStatus: ExitStatus { differences.isEmpty ? .success : .incomplete }
}

extension CommandContext {
    /// `subrecon parity`: both Apple APIs asked about the same due receipts, nothing written; the
    /// CSV of every differing field to `outputPath` (atomically) or standard output.
    public func parity(limit: Int?, outputPath: String?, flags: Settings.Flags) async throws -> ParityCheck.Result {
        var flags = flags
        flags.requireBothAPIs = true
        let settings = try settings(flags)
        let store = try await openStore(settings.database)
        let job = LiveWiring(settings: settings, store: store, clock: clock, logger: logger)
        let result = try await job.parity(limit: limit)
        func writeCSV(_ handle: FileHandle) throws {
            var csv = CSVWriter(fileHandle: handle)
            try csv.writeRow(ParityDifference.csvHeader)
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
            throw ParityOutputFailure(reason: "\(error)")
        }
        return result
    }
}
