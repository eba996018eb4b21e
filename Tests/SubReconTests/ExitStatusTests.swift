import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The contract's exit codes (docs: README "Exit codes"), pinned: cron jobs and shells rely on them.
@Suite struct ExitStatusTests {
    @Test func theCodesAreTheContracts() {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 65, 66, 73, 74, 75])
        #expect(RunFailure.store(.failed(operation: "x", reason: "y")).exitCode == ExitStatus.databaseFailed.rawValue)
        #expect(ImportFailure.badRows([]).exitCode == 65)
        #expect(AppleReportImportError.unreadable(path: "x", reason: "y").exitCode == 66)
    }
}
