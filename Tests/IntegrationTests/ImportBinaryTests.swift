import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// `subrecon import` through the built binary: what an operator's file does on either store.
@Suite struct ImportBinaryTests {
    /// Issue 34 (item 7): a StoreKit 2 app's CSV has no receipt_data column, as JSON Lines may omit the key.
    @Test(arguments: StoreKind.allCases) func aCSVWithoutReceiptDataImportsInServerAPIModeAsJSONLinesDoes(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let serverAPI = world.storeEnvironment.merging(["SUBRECON_APPLE_API": "server-api"]) { $1 }
            let transactions = world.folder + "/transactions.csv"
            try "user_id,transaction_id\nu1,2000000123456789\nu2,2000000123456790\n".write(
                toFile: transactions, atomically: true, encoding: .utf8)
            let tokens = world.folder + "/tokens.csv"
            try "user_id,app_account_token\nu3,7e3fb20b-4cdb-47cc-936d-99d65f608138\n".write(
                toFile: tokens, atomically: true, encoding: .utf8)

            let first = try await SubreconBinary.run(["import", transactions], environment: serverAPI)
            let second = try await SubreconBinary.run(["import", tokens], environment: serverAPI)

            #expect(first.exitCode == 0, "\(first.stderr)")
            #expect(first.stdout.contains("imported 2 receipt(s)"))
            #expect(second.exitCode == 0, "\(second.stderr)")
            #expect(second.stdout.contains("1 app account token(s) registered"))
            #expect(try await world.count("SELECT COUNT(*) FROM receipts WHERE transaction_id IS NOT NULL") == 2)
            #expect(try await world.count("SELECT COUNT(*) FROM app_account_tokens WHERE user_id = 'u3'") == 1)

            // In verify-receipt mode the same file is refused row by row, as the JSON Lines would be.
            let refused = try await SubreconBinary.run(["import", transactions], environment: world.storeEnvironment)
            #expect(refused.exitCode == 65)
            #expect(refused.stderr.contains("transactions.csv:2: receipt_data is empty: a row with only a transaction_id"))
            #expect(refused.stderr.contains("transactions.csv:3:"))
        }
    }

    /// Issue 34 (item 16): a line far over the limit is counted, not kept: the binary's peak memory
    /// stays bounded, it refuses in well under a second per hundred megabytes, and lines after it
    /// keep their numbers.
    @Test(arguments: ImportFormat.allCases) func aHugeLineIsRefusedWithoutBeingReadIntoMemory(format: ImportFormat) async throws {
        try await TestWorld.make().closing { world in
            let file = world.folder + "/huge.\(format.rawValue)"
            let hugeBytes = 160 << 20
            let (head, hugeStart, hugeEnd, tail) = format == .csv
                ? ("user_id,receipt_data\nu1,QUJD\n", "u2,", "\n", "u3,QUJD\nu4,QU!D\n")
                : (#"{"user_id":"u1","receipt_data":"QUJD"}"# + "\n", #"{"user_id":"u2","receipt_data":""#, "\"}\n",
                   #"{"user_id":"u3","receipt_data":"QUJD"}"# + "\n" + #"{"user_id":"u4","receipt_data":"QU!D"}"# + "\n")
            FileManager.default.createFile(atPath: file, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.write(contentsOf: Data((head + hugeStart).utf8))
            let block = Data(repeating: UInt8(ascii: "A"), count: 1 << 20)
            for _ in 0..<(hugeBytes >> 20) { try handle.write(contentsOf: block) }
            try handle.write(contentsOf: Data((hugeEnd + tail).utf8))
            try handle.close()
            let hugeLine = format == .csv ? 3 : 2

            let started = ContinuousClock.now
            let result = try Self.runMeasured(["import", file], environment: world.storeEnvironment, folder: world.folder)
            let elapsed = ContinuousClock.now - started

            #expect(result.exitCode == 65, "\(result.stderr)")
            #expect(result.stderr.contains("huge.\(format.rawValue):\(hugeLine): the line is \(hugeBytes + hugeStart.utf8.count + hugeEnd.utf8.count - 1) bytes long, over the limit of"), "\(result.stderr)")
            #expect(result.stderr.contains("huge.\(format.rawValue):\(hugeLine + 2): receipt_data is not base64"), "\(result.stderr)")
            #expect(result.stderr.contains("2 bad row(s); nothing from this file was imported"))
            #expect(result.peakKilobytes <= 64 * 1024, "peak RSS \(result.peakKilobytes) KB")
            #expect(elapsed < .seconds(5), "\(elapsed)")
            #expect(try await world.count("SELECT COUNT(*) FROM receipts") == 0)
        }
    }

    struct Measured {
        var exitCode: Int32
        var stderr: String
        var peakKilobytes: Int
    }

    /// Runs the binary under `/usr/bin/time`, which reports the peak resident set size of the
    /// binary alone (wait4's own figure for a child we spawn would include this test process's
    /// memory, shared until the child's exec).
    static func runMeasured(_ arguments: [String], environment: [String: String], folder: String) throws -> Measured {
        let time = "/usr/bin/time"
        try #require(FileManager.default.isExecutableFile(atPath: time), "GNU time measures the peak memory")
        let report = folder + "/measured.time"
        let child = try SubreconBinary.spawn(
            ["-f", "%M", "-o", report, SubreconBinary.path] + arguments, executable: time, environment: environment,
            stdin: "/dev/null", stdout: folder + "/measured.out", stderr: folder + "/measured.err")
        let exitCode = SubreconBinary.waitBlocking(child)
        let peak = (try? String(contentsOfFile: report, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return Measured(
            exitCode: exitCode,
            stderr: (try? String(contentsOfFile: folder + "/measured.err", encoding: .utf8)) ?? "",
            peakKilobytes: try #require(peak, "no peak memory reported"))
    }
}
