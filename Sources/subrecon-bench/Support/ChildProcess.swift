import AppleSignedData
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A process the benchmark starts with `posix_spawn` (stdout and stderr to files) and reaps with
/// `wait4`, which hands back its resource usage: CPU time and peak RSS of exactly that process.
struct ChildProcess: Sendable {
    let pid: pid_t
    let executable: String

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// How the process ended and what it used.
    struct Exit: Sendable {
        /// Exit status, or nil when a signal ended it.
        var code: Int32?
        var signal: Int32?
        var userSeconds: Double
        var systemSeconds: Double
        /// Peak resident set size in KB: the highest `VmHWM` sampled while it ran. Not `ru_maxrss`:
        /// on Linux an exec records the spawner's own peak into the child's `ru_maxrss` (posix_spawn
        /// and fork alike), so it would report the benchmark's memory, not the worker's.
        var peakRSSKilobytes: Int

        var cpuSeconds: Double { userSeconds + systemSeconds }

        var description: String {
            if let code { return "exit \(code)" }
            return "killed by signal \(signal ?? 0)"
        }
    }

    static func spawn(
        executable: String, arguments: [String], environment: [String: String], stdoutPath: String,
        stderrPath: String
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid, executable: executable)
    }

    /// Blocks until the process ends (call it from a thread that has nothing else to do), reading
    /// its peak RSS every `sampleEvery` meanwhile.
    func wait(sampleEvery interval: Duration = .milliseconds(20)) -> Exit {
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        let micros = useconds_t(max(1, interval.nanoseconds / 1_000))
        while true {
            // Sampled before the non-blocking reap: once reaped, /proc no longer has it.
            peak = max(peak, peakRSSKilobytesSoFar() ?? 0)
            let result = wait4(pid, &status, WNOHANG, &usage)
            if result == pid { break }
            if result < 0 && errno != EINTR { break }
            usleep(micros)
        }
        let exited = status & 0x7f == 0
        return Exit(
            code: exited ? (status >> 8) & 0xff : nil,
            signal: exited ? nil : status & 0x7f,
            userSeconds: Self.seconds(usage.ru_utime),
            systemSeconds: Self.seconds(usage.ru_stime),
            peakRSSKilobytes: peak)
    }

    /// `wait()` on a thread of its own (`wait4` blocks), so no Swift concurrency thread is held.
    func waitOffTheCooperativePool() async -> Exit {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: wait()) }
        }
    }

    /// Sends `signal` (SIGTERM by default) to this process only.
    func terminate(_ signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// CPU seconds (user + system) the running process used so far, from `/proc/PID/stat`.
    func cpuSecondsSoFar() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": 3 state … 14 utime, 15 stime (clock ticks).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Peak RSS so far (`VmHWM` from `/proc/PID/status`), in KB.
    func peakRSSKilobytesSoFar() -> Int? { statusKilobytes("VmHWM:") }

    /// Resident set size now (`VmRSS`), in KB: memory flat or growing under load.
    func residentKilobytesNow() -> Int? { statusKilobytes("VmRSS:") }

    /// A `kB` field of `/proc/PID/status`, by its label.
    private func statusKilobytes(_ label: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(label) {
            return Int(line.dropFirst(label.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }

    /// This process's own CPU seconds so far (user + system, all threads).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The environment children start with: the benchmark's own, minus every `SUBRECON_` setting
    /// (a secret file set by the caller would clash with the secret the benchmark passes).
    static func baseEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SUBRECON_") }
    }

    /// The folder this executable lives in (where `swift build` also put `subrecon`).
    static func ownDirectory() -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }
}
