import Foundation
import Testing
import SubReconTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `jobs/deliver-webhooks.sh` and its crontab line, as cron runs them. The script's own behaviour
/// (settings file, arguments, log line, exit codes as cron sees them, one run at a time) is tested
/// against a stand-in for the binary that answers as `subrecon webhooks deliver` is specified to
/// (0 nothing pending, 1 still pending, 2 configuration), so it holds whatever the deliverer does.
@Suite(.serialized) struct DeliverWebhooksJobTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("jobs/deliver-webhooks.sh").path

    /// A folder with a stand-in binary that records its arguments and environment, prints a summary
    /// and a warning, and exits with the code in the file `exit` (0 when absent).
    struct Bench {
        let folder: String
        var binary: String { folder + "/subrecon" }
        var log: String { folder + "/log/webhooks.log" }
        var errors: String { folder + "/log/webhooks.err" }
        var envFile: String { folder + "/subrecon.env" }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-deliver-job-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let stub = """
                #!/bin/bash
                printf '%s\\n' "$@" >"\(folder)/arguments"
                echo "url=${SUBRECON_WEBHOOK_URL:-} level=${SUBRECON_LOG_LEVEL:-}" >"\(folder)/environment"
                echo "a progress line"
                echo "delivered 3 event(s); 0 pending"
                echo "warning: a line for the .err file" >&2
                exit "$(cat "\(folder)/exit" 2>/dev/null || echo 0)"
                """
            try stub.write(toFile: binary, atomically: true, encoding: .utf8)
            chmod(binary, 0o755)
            try "SUBRECON_WEBHOOK_URL=https://hooks.example.com/subrecon\n".write(toFile: envFile, atomically: true, encoding: .utf8)
        }

        func exiting(_ code: Int32) throws { try "\(code)\n".write(toFile: folder + "/exit", atomically: true, encoding: .utf8) }

        func run(_ arguments: [String] = [], extra: [String: String] = [:]) async throws -> SubreconBinary.Result {
            try await ShellScript.run(
                DeliverWebhooksJobTests.script, arguments,
                environment: ["SUBRECON_ENV_FILE": envFile, "SUBRECON_BIN": binary, "WEBHOOKS_LOG_FILE": log].merging(extra) { $1 })
        }

        func read(_ name: String) -> String { (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "" }
        func logLines() -> [String] { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test func theScriptIsExecutableAndValidBash() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.script))
        // posix_spawn, not Foundation's Process, whose run() traps when a signal interrupts it.
        let status = try StandardWebhooksVerifier.run(["/bin/bash", "-n", Self.script], stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null")
        #expect(status == 0)
    }

    @Test func nothingPendingIsQuietAndLogsOneLine() async throws {
        let bench = try Bench()
        defer { bench.remove() }
        let job = try await bench.run(["--app", "com.example.app"])
        #expect(job.exitCode == 0)
        #expect(job.stdout.isEmpty && job.stderr.isEmpty, "cron mails any output: \(job.stdout)\(job.stderr)")
        #expect(bench.read("arguments") == "webhooks\ndeliver\n--max-seconds\n50\n--app\ncom.example.app\n")
        // The settings file is exported to the binary; progress stays out of cron mail.
        #expect(bench.read("environment") == "url=https://hooks.example.com/subrecon level=warning\n")
        let lines = bench.logLines()
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix(" exit=0 delivered 3 event(s); 0 pending") == true, "\(lines)")
        #expect(bench.read("log/webhooks.err") == "warning: a line for the .err file\n")
    }

    @Test func stillPendingIsNotACronErrorButIsLogged() async throws {
        let bench = try Bench()
        defer { bench.remove() }
        try bench.exiting(1)
        let job = try await bench.run(extra: ["WEBHOOKS_MAX_SECONDS": "7"])
        #expect(job.exitCode == 0)
        #expect(job.stdout.isEmpty && job.stderr.isEmpty)
        #expect(bench.read("arguments") == "webhooks\ndeliver\n--max-seconds\n7\n")
        #expect(bench.logLines().last?.contains(" exit=1 delivered 3 event(s)") == true)
    }

    @Test(arguments: [Int32(2), 3]) func aConfigurationErrorOrWorseIsPassedThroughWithOneLine(code: Int32) async throws {
        let bench = try Bench()
        defer { bench.remove() }
        try bench.exiting(code)
        let job = try await bench.run()
        #expect(job.exitCode == code)
        #expect(job.stderr == "subrecon webhooks deliver exited \(code): delivered 3 event(s); 0 pending\n")
        #expect(bench.logLines().last?.contains(" exit=\(code) ") == true)
    }

    @Test func aRunThatFindsThePreviousOneStillGoingLeavesItAlone() async throws {
        let bench = try Bench()
        defer { bench.remove() }
        let lockFile = bench.folder + "/held.lock"
        // Another run holds the lock (flock locks belong to an open file, so this process's lock
        // stops the script's own attempt, as a second cron run's would).
        let fd = open(lockFile, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let skipped = try await bench.run(extra: ["WEBHOOKS_LOCK_FILE": lockFile])
        #expect(skipped.exitCode == 0)
        #expect(skipped.stdout.isEmpty && skipped.stderr.isEmpty)
        #expect(bench.read("arguments").isEmpty, "the binary ran although the lock was held")
        #expect(bench.logLines().last?.contains("skipped: the previous run still holds \(lockFile)") == true)

        close(fd)
        let ran = try await bench.run(extra: ["WEBHOOKS_LOCK_FILE": lockFile])
        #expect(ran.exitCode == 0)
        #expect(bench.read("arguments").hasPrefix("webhooks\ndeliver\n"))
        // The default lock sits beside the log.
        _ = try await bench.run()
        #expect(FileManager.default.fileExists(atPath: bench.folder + "/log/webhooks.lock"))
    }

    @Test func theCrontabRunsItEveryMinute() throws {
        let crontab = try String(contentsOf: Self.root.appendingPathComponent("crontab.example"), encoding: .utf8)
        let line = crontab.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("jobs/deliver-webhooks.sh") }
        #expect(line.map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(5).joined(separator: " ") } == "* * * * *")
    }
}
