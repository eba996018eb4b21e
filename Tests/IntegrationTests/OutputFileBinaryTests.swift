import Foundation
import Testing

@testable import SubRecon

/// Issue 34, items 11 and 18: an output file that cannot be created is exit 73 (EX_CANTCREAT, as the
/// contract says), not 74 (the database failed), with an operator's sentence naming the folder.
@Suite struct OutputFileBinaryTests {
    @Test(arguments: StoreKind.allCases)
    func aReportIntoAMissingFolderExits73SayingTheFolderIsMissing(store kind: StoreKind) async throws {
        try await TestWorld.make(store: kind).closing { world in
            let missing = world.folder + "/no-such-folder"
            let cases: [[String]] = [
                ["report", "runs", "--output", missing + "/runs.csv"],
                ["report", "subscriptions", "--output", missing + "/subscriptions.csv"],
                ["report", "dashboard", "--output", missing + "/dashboard.html"],
            ]
            for arguments in cases {
                let result = try await SubreconBinary.run(arguments, environment: world.storeEnvironment)
                #expect(result.exitCode == 73, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains("cannot write the report to \(arguments[3]): the folder \(missing) does not exist"),
                    "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("Domain"), "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }

    /// A folder the user may not write in: 73 too, saying so (not errno's words).
    @Test func aReportIntoAFolderThatIsAFileExits73() async throws {
        try await TestWorld.make().closing { world in
            let file = world.folder + "/plain-file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await SubreconBinary.run(
                ["report", "runs", "--output", file + "/runs.csv"], environment: world.storeEnvironment)
            #expect(result.exitCode == 73, "\(result.stderr)")
            #expect(result.stderr.contains("\(file) is not a folder"), "\(result.stderr)")
        }
    }
}
