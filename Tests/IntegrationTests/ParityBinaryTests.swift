import AppleSignedData
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// `subrecon parity` and `report apple-parity` through the built binary: comparing nothing is
/// never a silent exit 0, and the days not compared are named.
@Suite struct ParityBinaryTests {
    /// Issue 34 (item 8): after a nightly run nothing is due, so plain `parity` compares nothing.
    @Test(arguments: StoreKind.allCases) func parityAfterANightlyRunSaysNothingIsDueAndAllComparesEveryReceipt(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await world.importScenarios([.active, .sandboxActive, .refunded])
            let environment = try ServerAPIBinaryTests().setUp(world).environment
                .merging(world.storeEnvironment) { $1 }
                .merging(["SUBRECON_SHARED_SECRET": TestWorld.secret]) { $1 }
            let run = try await SubreconBinary.run(["run"], environment: environment)
            #expect(run.exitCode == 0, "\(run.stderr)")

            let nothingDue = try await SubreconBinary.run(["parity"], environment: environment)
            let all = try await SubreconBinary.run(["parity", "--all"], environment: environment)
            let limited = try await SubreconBinary.run(["parity", "--all", "--limit", "2"], environment: environment)

            #expect(nothingDue.exitCode == 1, "\(nothingDue.stderr)")
            #expect(nothingDue.stderr.contains("0 receipts compared: none is due (3 receipts are stored"), "\(nothingDue.stderr)")
            #expect(nothingDue.stderr.contains("subrecon parity --all compares every stored receipt"))
            #expect(all.exitCode == 0, "\(all.stdout)\(all.stderr)")
            #expect(all.stderr.contains("parity: 3 receipts"), "\(all.stderr)")
            #expect(limited.stderr.contains("parity: 2 receipts"), "\(limited.stderr)")
            // Nothing written: the receipts are still not due.
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE next_due_at <= \(WallClock.unixMilliseconds())") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func parityWithNoReceiptStoredSaysSoAndExits1(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let environment = try ServerAPIBinaryTests().setUp(world).environment
                .merging(world.storeEnvironment) { $1 }
                .merging(["SUBRECON_SHARED_SECRET": TestWorld.secret]) { $1 }

            let parity = try await SubreconBinary.run(["parity", "--all"], environment: environment)

            #expect(parity.exitCode == 1, "\(parity.stderr)")
            #expect(parity.stderr.contains("0 receipts compared: no receipt is stored"), "\(parity.stderr)")
        }
    }

    /// Issue 34 (item 8): cron relies on exit 1 when no day was compared; a gap between stored
    /// days is named, not left for the reader to count.
    @Test(arguments: StoreKind.allCases) func appleParityNamesTheDaysItDidNotCompareAndExits1WhenItComparedNone(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let environment = try AppleReportsBinaryTests.environment(world)
            var files: [String] = []
            for day in ["05", "07", "08", "11"] {
                let file = world.folder + "/S_D_80012345_202010\(day).txt"
                try AppleReportsBinaryTests.sample.replacingOccurrences(of: "10/05/2020", with: "10/\(day)/2020")
                    .write(toFile: file, atomically: true, encoding: .utf8)
                files.append(file)
            }
            let imported = try await SubreconBinary.run(["apple-reports", "import"] + files, environment: environment)
            #expect(imported.exitCode == 0, "\(imported.stderr)")

            let everyStoredDay = try await SubreconBinary.run(["report", "apple-parity"], environment: environment)
            let noneStored = try await SubreconBinary.run(
                ["report", "apple-parity", "--since", "2020-09-01", "--until", "2020-09-04"], environment: environment)

            #expect(everyStoredDay.stderr.contains("4 days compared (2020-10-05 to 2020-10-11, Pacific time)"), "\(everyStoredDay.stderr)")
            #expect(
                everyStoredDay.stderr.contains(
                    "not compared: 3 days of the window have no Apple report stored: 2020-10-06, 2020-10-09 to 2020-10-10"),
                "\(everyStoredDay.stderr)")
            #expect(noneStored.exitCode == 1, "\(noneStored.stderr)")
            #expect(noneStored.stderr.contains("no day compared"))
            #expect(noneStored.stderr.contains("2020-09-01 to 2020-09-03"), "\(noneStored.stderr)")
        }
    }
}
