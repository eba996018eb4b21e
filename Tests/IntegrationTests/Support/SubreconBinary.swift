import Foundation

/// Runs the built `subrecon` executable, as cron or an operator would.
/// scripts/test.sh sets SUBRECON_BINARY; otherwise the debug build next to this package is used.
///
/// Children are started with posix_spawn and reaped with waitpid, their output going through
/// files: Foundation's `Process` crashed (a bad pointer inside `Process.run`) and its reads died of
/// EINTR when many tests started processes at once.
enum SubreconBinary {
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    /// A child started without waiting (kill tests).
    struct Running: Sendable {
        let processIdentifier: pid_t
    }

    static var path: String {
        if let path = ProcessInfo.processInfo.environment["SUBRECON_BINARY"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/subrecon").path
    }

    /// Runs with exactly `environment` (plus PATH): nothing leaks in from the developer's shell.
    /// Waits on a plain thread, never on the cooperative pool, where the in-process simulator
    /// that the binary talks to needs the threads to answer.
    /// `executable` (default: the binary) another program, such as a shell running a printed command.
    static func run(
        _ arguments: [String], executable: String = path, environment: [String: String] = [:], stdin: Data? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(arguments, executable: executable, environment: environment, stdin: stdin)
                })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], executable: String, environment: [String: String], stdin: Data?)
        throws -> Result
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-child-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/stdin"
        FileManager.default.createFile(atPath: input, contents: stdin ?? Data())
        let child = try spawn(
            arguments, executable: executable, environment: environment, stdin: input, stdout: folder + "/stdout", stderr: folder + "/stderr")
        let status = waitBlocking(child)
        return Result(
            exitCode: status,
            stdout: (try? String(contentsOfFile: folder + "/stdout", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "")
    }

    /// Starts the binary without waiting (for kill tests); output goes to files in `folder`.
    static func start(_ arguments: [String], environment: [String: String], folder: String) throws -> Running {
        try spawn(
            arguments, environment: environment, stdin: "/dev/null", stdout: folder + "/child.out",
            stderr: folder + "/child.err")
    }

    /// Waits for a started process off the cooperative pool: its exit code, or the signal that
    /// ended it (as Foundation's `terminationStatus` reports it).
    static func wait(_ child: Running) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: waitBlocking(child)) }
        }
    }

    /// Starts `executable` (default: the binary) with exactly `environment` plus PATH, its standard
    /// streams on these files, and no other descriptor of ours.
    static func spawn(
        _ arguments: [String], executable: String = path, environment: [String: String], stdin: String, stdout: String,
        stderr: String
    ) throws -> Running {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of ours: an inherited listening socket would keep a stopped server's port taken.
        SpawnActions.closeInheritedDescriptors(&actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable)"])
        }
        return Running(processIdentifier: pid)
    }

    /// Waits on this thread: the exit code, or the signal that ended the child.
    static func waitBlocking(_ child: Running) -> Int32 {
        var status: Int32 = 0
        while waitpid(child.processIdentifier, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
