import AppStoreSimulator
import AppleSignedData
import Foundation
import GRDB
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// `subrecon apple-reports fetch|import` and `report apple-parity` through the built binary:
/// kill -9 in the middle of a 90-day fetch, then the same command again asks Apple only for what
/// is missing; hand-downloaded files with every kind of defect give FILE:LINE, exit 65 and store
/// nothing; the team key never shows in output or in the database.
@Suite(.serialized) struct AppleReportsBinaryTests {
    static func environment(_ world: TestWorld) throws -> [String: String] {
        let keyFile = world.folder + "/AuthKey_TEAMKEY001.p8"
        try world.ascKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        return world.storeEnvironment.merging([
            "SUBRECON_ASC_KEY_FILE": keyFile, "SUBRECON_ASC_KEY_ID": world.ascKey.keyID,
            "SUBRECON_ASC_ISSUER_ID": world.ascKey.issuerID, "SUBRECON_VENDOR_NUMBER": "80012345",
            "SUBRECON_ASC_URL": world.simulator.appStoreConnectBaseURL,
        ]) { $1 }
    }

    /// The key's base64 body, as a secret scan looks for it.
    static func keyBody(_ world: TestWorld) -> String {
        world.ascKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    @Test func killedInTheMiddleOfANinetyDayFetchTheNextRunAsksOnlyForWhatIsMissing() async throws {
        try await TestWorld.make(latency: .milliseconds(60)).closing { world in
            // The binary's days are the wall clock's: so are the simulator's.
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await LedgerScenarioRunTests.importLedgerScenarios(world)
            let env = try Self.environment(world)
            let today = try PacificTime().day(ofMs: world.clock.nowMs)
            // 90 days that ended at least a week ago: final once stored.
            let since = today.adding(days: -97).text, until = today.adding(days: -7).text

            let victim = try SubreconBinary.start(
                ["apple-reports", "fetch", "--since", since, "--until", until], environment: env, folder: world.folder)
            while try await world.count("SELECT COUNT(*) FROM apple_report_days") < 20 {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(victim.processIdentifier, SIGKILL)
            _ = await SubreconBinary.wait(victim)
            let storedBefore = try await world.count("SELECT COUNT(*) FROM apple_report_days")
            #expect(storedBefore < 90, "the kill landed mid-fetch")
            let before = world.simulator.statistics().salesReportRequestsByDate

            let again = try await SubreconBinary.run(["apple-reports", "fetch", "--since", since, "--until", until], environment: env)
            #expect(again.exitCode == 0, "\(again.stderr)")
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_days") == 90)
            let after = world.simulator.statistics().salesReportRequestsByDate
            let askedAgain = after.filter { $0.value > (before[$0.key] ?? 0) }.map(\.key)
            #expect(askedAgain.count == 90 - storedBefore, "asked again: \(askedAgain.count), missing: \(90 - storedBefore)")
            // Every day asked at most twice (the one in flight at the kill), the stored days once.
            #expect(after.values.allSatisfy { $0 <= 2 })
            #expect(again.stdout.components(separatedBy: "stored earlier and final: kept").count - 1 == storedBefore)
            #expect(again.stdout.contains("(90 days)"))
            // No row twice, and the same rows as a fetch that was never interrupted.
            let rows = try await world.count("SELECT COUNT(*) FROM apple_report_rows")
            try await TestWorld.make().closing { reference in
                reference.clock.set(nowMs: world.clock.nowMs)
                try await LedgerScenarioRunTests.importLedgerScenarios(reference)
                let whole = try await SubreconBinary.run(
                    ["apple-reports", "fetch", "--since", since, "--until", until], environment: try Self.environment(reference))
                #expect(whole.exitCode == 0, "\(whole.stderr)")
                #expect(try await reference.count("SELECT COUNT(*) FROM apple_report_rows") == rows)
                #expect(rows > 0)
                for output in [again.stdout, again.stderr, whole.stdout, whole.stderr] {
                    #expect(!output.contains(Self.keyBody(world)) && !output.contains("PRIVATE KEY"))
                }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: world.folder + "/subrecon.sqlite"))
                #expect(bytes.range(of: Data(Self.keyBody(world).utf8)) == nil)
            }
        }
    }

    @Test func fetchConfigurationErrorsExitTwoAndNameTheSetting() async throws {
        try await TestWorld.make().closing { world in
            var env = try Self.environment(world)
            env["SUBRECON_ASC_KEY_ID"] = nil
            let missing = try await SubreconBinary.run(["apple-reports", "fetch"], environment: env)
            #expect(missing.exitCode == 2)
            #expect(missing.stderr.contains("SUBRECON_ASC_KEY_ID"))
            let future = try await SubreconBinary.run(["apple-reports", "fetch", "--until", "2099-01-01"], environment: try Self.environment(world))
            #expect(future.exitCode == 2 && future.stderr.contains("in the future"), "\(future.stderr)")
            env = try Self.environment(world)
            env["SUBRECON_VENDOR_NUMBER"] = "81234567"
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            let vendor = try await SubreconBinary.run(["apple-reports", "fetch"], environment: env)
            #expect(vendor.exitCode == 2 && vendor.stderr.contains("81234567"), "\(vendor.stderr)")
            #expect(!vendor.stderr.contains(Self.keyBody(world)))
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_days") == 0)
        }
    }

    /// The anonymised Apple-shaped sample the parser's unit tests use (read from the source tree).
    static let sample: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SubReconTests/Fixtures/AppleReports/sales.tsv")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    @Test func importStoresGoodFilesAndABadOneStoresNothingWithFileAndLine() async throws {
        try await TestWorld.make().closing { world in
            let folder = world.folder
            let good = folder + "/S_D_80012345_20201005.txt"
            try Self.sample.write(toFile: good, atomically: true, encoding: .utf8)
            let lines = Self.sample.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let header = lines[0].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let unitsColumn = try #require(header.firstIndex(of: "Units"))
            // Line 5 with a fractional unit count.
            var broken = lines
            var cells = broken[4].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            cells[unitsColumn] = "1.5"
            broken[4] = cells.joined(separator: "\t")
            let bad = folder + "/S_D_80012345_20201006.txt"
            try broken.joined(separator: "\n").replacingOccurrences(of: "10/05/2020", with: "10/06/2020")
                .write(toFile: bad, atomically: true, encoding: .utf8)
            let noCurrency = folder + "/no-currency.tsv"
            try Self.sample.replacingOccurrences(of: "Customer Currency", with: "Something Else")
                .write(toFile: noCurrency, atomically: true, encoding: .utf8)
            let otherVendor = folder + "/S_D_99999999_20201005.txt"
            try Self.sample.write(toFile: otherVendor, atomically: true, encoding: .utf8)
            let env = try Self.environment(world)

            let refused = try await SubreconBinary.run(["apple-reports", "import", good, bad, noCurrency, otherVendor], environment: env)
            #expect(refused.exitCode == 65, "\(refused.stderr)")
            #expect(refused.stderr.contains("\(bad):5:"), "\(refused.stderr)")
            #expect(refused.stderr.contains(noCurrency + ":1:") && refused.stderr.contains("Customer Currency"))
            #expect(refused.stderr.contains(otherVendor) && refused.stderr.contains("99999999"))
            #expect(refused.stderr.contains("nothing was stored"))
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_days") == 0)

            let future = folder + "/S_D_80012345_20991231.txt"
            try Self.sample.replacingOccurrences(of: "10/05/2020", with: "12/31/2099").write(toFile: future, atomically: true, encoding: .utf8)
            let tooEarly = try await SubreconBinary.run(["apple-reports", "import", future], environment: env)
            #expect(tooEarly.exitCode == 65 && tooEarly.stderr.contains("2099-12-31") && tooEarly.stderr.contains("has not ended"), "\(tooEarly.stderr)")

            let unreadable = try await SubreconBinary.run(["apple-reports", "import", folder + "/nope.txt"], environment: env)
            #expect(unreadable.exitCode == 66)

            let imported = try await SubreconBinary.run(["apple-reports", "import", good], environment: env)
            #expect(imported.exitCode == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("2020-10-05  stored 46 rows (new)"), "\(imported.stdout)")
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_rows WHERE day = '2020-10-05'") == 46)
            let twice = try await SubreconBinary.run(["apple-reports", "import", good], environment: env)
            #expect(twice.stdout.contains("replaced an identical earlier copy"))
            #expect(try await world.count("SELECT COUNT(*) FROM apple_report_rows") == 46)

            // The sample's day, matched against an empty ledger: every Apple unit is missing from it.
            let parity = try await SubreconBinary.run(["report", "apple-parity", "--since", "2020-10-05", "--until", "2020-10-06"], environment: env)
            #expect(parity.exitCode == 1, "\(parity.stderr)")
            #expect(parity.stderr.contains("1 days compared"))
            let rows = CSVTable.parse(parity.stdout)
            #expect(!rows.isEmpty && rows.allSatisfy { $0["status"] == "missing_in_ledger" })
            let billed = rows.filter { $0["kind"] == "billed" }.reduce(0) { $0 + (Int($1["apple_units"] ?? "") ?? 0) }
            #expect(parity.stderr.contains("lost orders found: \(billed)"))
            #expect(rows.contains { $0["kind"] == "partial_refund" && $0["currency"] == "RUB" && $0["price_milliunits"] == "85430" })
            let misuse = try await SubreconBinary.run(["report", "apple-parity", "--by", "day"], environment: env)
            #expect(misuse.exitCode == 2)
        }
    }
}
