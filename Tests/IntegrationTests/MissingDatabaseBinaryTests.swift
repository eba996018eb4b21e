import Foundation
import Testing

/// Issue 34, item 4: a mistyped database path must not look healthy. The commands that only read
/// refuse a SQLite file that does not exist (exit 66, naming the path and where it came from) and
/// create nothing; the commands that take data in create it and say so on stderr, once.
@Suite struct MissingDatabaseBinaryTests {
    /// Enough settings for the commands that talk to Apple to reach the database (nothing is asked:
    /// the database is refused, or holds nothing due).
    static let appleSettings = [
        "SUBRECON_SHARED_SECRET": "missing-database-test-secret",
        "SUBRECON_PRODUCTION_URL": "http://127.0.0.1:9/verifyReceipt",
        "SUBRECON_SANDBOX_URL": "http://127.0.0.1:9/verifyReceipt",
    ]

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-missing-db-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Each command that only reads, as the operator would type it (a dry run writes nothing).
    static let readers: [[String]] = [
        ["status"], ["report", "subscriptions"], ["report", "runs"], ["user", "u1"], ["parity"], ["link", "u1", "1000000001"],
        ["forget", "u1"], ["run", "--dry-run"],
    ]

    @Test func aCommandThatOnlyReadsRefusesAMistypedDatabaseAndCreatesNothing() async throws {
        try await TestWorld.make().closing { world in
            // Every setting the commands that talk to Apple check first (server-api, for `link`).
            var environment = try ServerAPIBinaryTests().setUp(world).environment
            environment["SUBRECON_SHARED_SECRET"] = TestWorld.secret
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let typo = folder + "/subrecn.sqlite"
            for arguments in Self.readers {
                let flag = try await SubreconBinary.run(arguments + ["--db", typo], environment: environment)
                #expect(flag.exitCode == 66, "\(arguments): \(flag.stderr)")
                #expect(flag.stderr.contains("no database at \(typo) (--db)"), "\(arguments): \(flag.stderr)")
                #expect(flag.stdout.isEmpty, "\(arguments): \(flag.stdout)")

                let variable = try await SubreconBinary.run(arguments, environment: environment.merging(["SUBRECON_DB": typo]) { $1 })
                #expect(variable.exitCode == 66, "\(arguments): \(variable.stderr)")
                #expect(variable.stderr.contains("no database at \(typo) (SUBRECON_DB)"), "\(arguments): \(variable.stderr)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
            #expect(world.simulator.appAccountTokenSets().isEmpty, "Apple was asked")
        }
    }

    @Test func withoutSUBRECONDBTheDefaultIsNamedAndNotCreated() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let status = try await Self.runIn(folder, ["status"], environment: [:])
        #expect(status.exitCode == 66, "\(status.stderr)")
        #expect(status.stderr.contains("no database at ./subrecon.sqlite (the default: neither --db nor SUBRECON_DB is set)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }

    @Test func dbCopyFromAMissingSourceExits66AndCreatesNeitherFile() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await SubreconBinary.run(["db", "copy", folder + "/source.sqlite", folder + "/target.sqlite"])
        #expect(result.exitCode == 66, "\(result.stderr)")
        #expect(result.stderr.contains("no database at \(folder)/source.sqlite (db copy's SOURCE)"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }

    /// An import that stores nothing (a file that is not there, a bad row) creates no database:
    /// the file is read and checked before the store is opened.
    @Test func anImportThatStoresNothingCreatesNoDatabase() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/new.sqlite"
        let missing = try await SubreconBinary.run(["import", folder + "/nope.csv", "--db", database])
        #expect(missing.exitCode == 66, "\(missing.stderr)")
        #expect(!missing.stderr.contains("created a new"), "\(missing.stderr)")
        try "user_id,receipt_data\nu1,not base64!\n".write(toFile: folder + "/bad.csv", atomically: true, encoding: .utf8)
        let bad = try await SubreconBinary.run(["import", folder + "/bad.csv", "--db", database])
        #expect(bad.exitCode == 65, "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// `run` with SUBRECON_DB unset: the new database is said once (cron mails it), then never again.
    @Test func aCommandThatTakesDataInCreatesTheDatabaseAndSaysSoOnce() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await Self.runIn(folder, ["run"], environment: Self.appleSettings)
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "created a new, empty database at ./subrecon.sqlite (the default: neither --db nor SUBRECON_DB is set)"),
            "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/subrecon.sqlite"))
        let second = try await Self.runIn(folder, ["run"], environment: Self.appleSettings)
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("created"), "\(second.stderr)")

        let migrated = folder + "/migrated.sqlite"
        let migrate = try await SubreconBinary.run(["db", "migrate", "--db", migrated])
        #expect(migrate.exitCode == 0, "\(migrate.stderr)")
        #expect(migrate.stderr.contains("created a new, empty database at \(migrated) (--db)"), "\(migrate.stderr)")

        let imported = folder + "/imported.sqlite"
        let csv = folder + "/receipts.csv"
        try "user_id,receipt_data\nu1,\(Data("receipt".utf8).base64EncodedString())\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let importing = try await SubreconBinary.run(["import", csv], environment: ["SUBRECON_DB": imported])
        #expect(importing.exitCode == 0, "\(importing.stderr)")
        #expect(importing.stderr.contains("created a new, empty database at \(imported) (SUBRECON_DB)"), "\(importing.stderr)")
        // Now it exists, a reader reads it.
        let status = try await SubreconBinary.run(["status"], environment: ["SUBRECON_DB": imported])
        #expect(status.exitCode == 0, "\(status.stderr)")
        #expect(status.stderr.isEmpty, "\(status.stderr)")
    }

    /// PostgreSQL is unaffected: an existing database is read as before, one that is not there fails
    /// to connect (never "no database at" nor 66, which are about files).
    @Test func postgreSQLIsReadAsBeforeAndAMissingOneFailsToConnect() async throws {
        let postgres = try await TestPostgres.createDatabase()
        let migrate = try await SubreconBinary.run(["db", "migrate"], environment: postgres.environment.merging(["SUBRECON_DB": postgres.url]) { $1 })
        #expect(migrate.exitCode == 0, "\(migrate.stderr)")
        #expect(!migrate.stderr.contains("created"), "\(migrate.stderr)")
        let status = try await SubreconBinary.run(["status"], environment: postgres.environment.merging(["SUBRECON_DB": postgres.url]) { $1 })
        #expect(status.exitCode == 0, "\(status.stderr)")

        let missing = postgres.url + "_not_there"
        let refused = try await SubreconBinary.run(
            ["status"], environment: postgres.environment.merging(["SUBRECON_DB": missing, "SUBRECON_DB_RETRY_SECONDS": "1"]) { $1 })
        #expect(refused.exitCode != 0 && refused.exitCode != 66, "\(refused.exitCode): \(refused.stderr)")
        #expect(!refused.stderr.contains("no database at"), "\(refused.stderr)")
    }

    /// Runs the binary in `folder` (where `./subrecon.sqlite`, the default, is looked for), its
    /// output kept outside it.
    static func runIn(_ folder: String, _ arguments: [String], environment: [String: String]) async throws -> SubreconBinary.Result {
        let streams = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: streams) }
        let child = try SubreconBinary.spawn(
            ["-c", "cd \"$0\" && exec \"$@\"", folder, SubreconBinary.path] + arguments, executable: "/bin/sh",
            environment: environment, stdin: "/dev/null", stdout: streams + "/stdout", stderr: streams + "/stderr")
        let status = await SubreconBinary.wait(child)
        return SubreconBinary.Result(
            exitCode: status, stdout: (try? String(contentsOfFile: streams + "/stdout", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: streams + "/stderr", encoding: .utf8)) ?? "")
    }
}
