import AppStoreSimulator
import AppleSignedData
import Foundation
import GRDB
import Testing

@testable import SubRecon

/// Issue 34, item 18: what fails outside subrecon is said in the operator's words, not the
/// library's: a port in use, an output folder that does not exist, a damaged SQLite file, an
/// unreachable PostgreSQL (said once, with how long it is retried and why).
@Suite struct OperatorSentencesBinaryTests {
    /// Words of the libraries underneath that an operator should never have to read.
    static let internals = ["bind(descriptor", "errno", "NSCocoaErrorDomain", "Domain=", "SingleConnectionFailure", "while executing", "SELECT "]

    static func expectNoInternals(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for word in internals { #expect(!text.contains(word), "\(word) in: \(text)", sourceLocation: sourceLocation) }
    }

    @Test func aPortInUseIsSaidAsSuch() async throws {
        try await TestWorld.make().closing { world in
            // The simulator of this world holds a loopback port.
            let port = try #require(world.simulator.baseURL.split(separator: ":").last.map(String.init))

            let serve = try await SubreconBinary.run(
                ["notifications", "serve", "--host", "127.0.0.1", "--port", port],
                environment: world.storeEnvironment.merging(["SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID]) { $1 })
            #expect(serve.exitCode == 1, "\(serve.stderr)")
            #expect(
                serve.stderr.contains("cannot listen on 127.0.0.1:\(port): another process is already listening on port \(port)"),
                "\(serve.stderr)")
            Self.expectNoInternals(serve.stderr)

            let simulator = try await SubreconBinary.run(["simulator", "--port", port])
            #expect(simulator.exitCode == 1, "\(simulator.stderr)")
            #expect(simulator.stderr.contains("another process is already listening on port \(port)"), "\(simulator.stderr)")
            Self.expectNoInternals(simulator.stderr)
        }
    }

    @Test func anOutputFolderThatDoesNotExistIsNamed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-sentences-\(UUID().uuidString)").path
        let result = try await SubreconBinary.run(["simulator", "--port", "0", "--write-root-ca", folder + "/root.pem"])
        #expect(result.exitCode == 73, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write the root certificate to \(folder)/root.pem: the folder \(folder) does not exist"))
        Self.expectNoInternals(result.stderr)
    }

    @Test func aDamagedSQLiteFileIsSaidToBeDamagedWithoutItsSQL() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            _ = try await world.importScenarios([.active, .expired, .refunded])
            // Everything into the main file, then the receipts table's page overwritten: the file
            // opens, and the status fails in the middle of a query (which printed the whole SQL).
            let rootPage = try await world.database.writer.writeWithoutTransaction { db in
                try db.checkpoint(.truncate)
                return try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'receipts'") ?? 0
            }
            let path = world.databasePath
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            #expect(rootPage > 1 && bytes.count >= rootPage * pageSize, "page \(rootPage) of \(bytes.count / pageSize)")
            for offset in (rootPage - 1) * pageSize..<rootPage * pageSize { bytes[offset] = 0xA5 }
            try bytes.write(to: URL(fileURLWithPath: path))

            let status = try await SubreconBinary.run(["status"], environment: world.storeEnvironment)
            #expect(status.exitCode == 74, "\(status.stderr)")
            #expect(status.stderr.contains("the SQLite file is damaged"), "\(status.stderr)")
            #expect(status.stderr.contains("restore it from a backup"), "\(status.stderr)")
            Self.expectNoInternals(status.stderr)

            let notSQLite = world.folder + "/notes.txt"
            try String(repeating: "not a database\n", count: 100).write(toFile: notSQLite, atomically: true, encoding: .utf8)
            let wrongFile = try await SubreconBinary.run(["status", "--db", notSQLite])
            #expect(wrongFile.exitCode == 2, "\(wrongFile.stderr)")
            #expect(wrongFile.stderr.contains("the file is not a SQLite database"), "\(wrongFile.stderr)")
        }
    }

    /// Said once: that it retries, for how long, and why; then the reason in words, exit 74.
    @Test func anUnreachablePostgreSQLIsSaidOnceWithHowLongItIsRetried() async throws {
        let result = try await SubreconBinary.run(
            ["status"], environment: ["SUBRECON_DB": "postgres://nobody@127.0.0.1:1/none", "SUBRECON_DB_RETRY_SECONDS": "3"])
        #expect(result.exitCode == 74, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "one warning, one error: \(result.stderr)")
        #expect(
            lines.first?.contains(
                "cannot reach the database (nothing accepts connections at that host and port (is PostgreSQL running, and on that port?)); retrying for up to 3 s (SUBRECON_DB_RETRY_SECONDS), as a restarting or failing-over PostgreSQL comes back, then exit 74"
            ) == true, "\(result.stderr)")
        #expect(lines.last?.contains("the database failed while connecting: nothing accepts connections") == true, "\(result.stderr)")
        #expect(lines.last?.contains("(retried for 3 s)") == true, "\(result.stderr)")
        Self.expectNoInternals(result.stderr)
    }
}
