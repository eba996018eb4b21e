import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The contract's exit codes (docs: README "Exit codes"), pinned: cron jobs and shells rely on them.
@Suite struct ExitStatusTests {
    @Test func theCodesAreTheContracts() {
        // 130 and 143: a run stopped by SIGINT / SIGTERM (128 + the signal; issue 34).
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 65, 66, 73, 74, 75, 130, 143])
        #expect(ExitStatus.stopped(by: SIGINT) == .interrupted && ExitStatus.stopped(by: SIGTERM) == .terminated)
        #expect(ExitStatus.stopped(by: SIGKILL) == nil)
        // An output file that cannot be created is 73, not 74 (issue 34).
        #expect(ReportError.cannotWrite(path: "x", reason: "y").exitCode == 73)
        #expect(ReportError.failed("y").exitCode == 74)
        #expect(RunFailure.store(.failed(operation: "x", reason: "y")).exitCode == ExitStatus.databaseFailed.rawValue)
        #expect(ImportFailure.badRows([]).exitCode == 65)
        #expect(AppleReportImportError.unreadable(path: "x", reason: "y").exitCode == 66)
    }
}
