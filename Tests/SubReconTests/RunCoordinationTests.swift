@testable import SubRecon
import SubReconModel
import Testing

/// How a run's options follow the way workers share the database, without a store.
@Suite("RunCoordination")
struct RunCoordinationTests {
    @Test func behindTheRunLockTheOptionsStayAsTheyAre() {
        let options = ReconciliationRun.Options(kind: .nightly, selection: .due, concurrency: 8, pageSize: 512)
        let coordinated = options.coordinated(by: .runLock)
        #expect(coordinated.takesRunLock && coordinated.leaseMs == 120_000 && coordinated.pageSize == 512)
        #expect(coordinated.selection == .due)
        #expect(!coordinated.claimsDueReceipts)
    }

    @Test func withClaimsNoLockTheClaimTimeoutAsLeaseAndSmallPages() {
        let options = ReconciliationRun.Options(kind: .nightly, selection: .due, concurrency: 8, pageSize: 512)
        let coordinated = options.coordinated(by: .claims(timeoutMs: 30_000))
        #expect(!coordinated.takesRunLock)
        #expect(coordinated.leaseMs == 30_000)
        #expect(coordinated.pageSize == 32, "twice the concurrency, at least 32")
        #expect(coordinated.claimsDueReceipts)
        let wide = ReconciliationRun.Options(kind: .nightly, selection: .due, concurrency: 100, pageSize: 512)
        #expect(wide.coordinated(by: .claims(timeoutMs: 30_000)).pageSize == 200)
        let small = ReconciliationRun.Options(kind: .nightly, selection: .due, concurrency: 100, pageSize: 64)
        #expect(small.coordinated(by: .claims(timeoutMs: 30_000)).pageSize == 64)
    }

    @Test func withClaimsOnlyTheDueSelectionClaimsAndADryRunPreviewsIt() {
        let dryRun = ReconciliationRun.Options(kind: .nightly, selection: .due, dryRun: true)
            .coordinated(by: .claims(timeoutMs: 30_000))
        #expect(dryRun.selection == .duePreview)
        #expect(!dryRun.claimsDueReceipts)
        let all = ReconciliationRun.Options(kind: .nightly, selection: .all).coordinated(by: .claims(timeoutMs: 30_000))
        #expect(all.selection == .all && !all.claimsDueReceipts)
        let user = ReconciliationRun.Options(kind: .user, selection: .user("u1")).coordinated(by: .claims(timeoutMs: 30_000))
        #expect(user.selection == .user("u1") && !user.claimsDueReceipts && !user.takesRunLock)
    }
}
