import Foundation

/// Runs the built `subrecon` executable, as cron or an operator would.
/// scripts/test.sh sets SUBRECON_BINARY; otherwise the debug build next to this package is used.
enum SubreconBinary {
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
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
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) async throws
        -> Result
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, environment: environment, stdin: stdin) })
            }
        }
    }

    /// The binary with exactly `environment` plus PATH.
    private static func makeProcess(_ arguments: [String], environment: [String: String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        return process
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String], stdin: Data?) throws -> Result {
        let process = makeProcess(arguments, environment: environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read before waiting, so a full pipe can't block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            exitCode: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts the binary without waiting (for kill tests); output goes to files in `folder`.
    static func start(_ arguments: [String], environment: [String: String], folder: String) throws -> Process {
        let process = makeProcess(arguments, environment: environment)
        FileManager.default.createFile(atPath: folder + "/child.out", contents: nil)
        FileManager.default.createFile(atPath: folder + "/child.err", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: folder + "/child.out")
        process.standardError = FileHandle(forWritingAtPath: folder + "/child.err")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits for a started process off the cooperative pool; returns its exit status.
    static func wait(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}
