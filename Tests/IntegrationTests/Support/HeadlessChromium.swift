import Foundation

/// Opens a page in the system's Chromium, headless, and reports what a person's browser would have
/// done with it: the DOM it built, a screenshot, its console messages and every network request.
///
/// Each run gets a fresh profile in a temporary folder (removed after), a net log, and a deadline: a
/// hung browser is killed with its whole process group, so it can never hang the suite. Host names
/// resolve to nothing (`--host-resolver-rules`), so even a request that slipped out stays on this
/// machine; the net log still records that it was attempted.
enum HeadlessChromium {
    /// What one run left behind.
    struct Outcome: Sendable {
        var exitCode: Int32
        var timedOut: Bool
        var stdout: String
        var stderr: String
        /// The net log (Chromium's JSON), empty when it was not written.
        var netLog: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// How long one browser run may take before it is killed.
    static let deadlineSeconds = 60.0

    /// The browser: `SUBRECON_CHROMIUM` when set (nil if that is not an executable), else the first
    /// of the usual names on PATH or in /usr/bin.
    static func executable() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["SUBRECON_CHROMIUM"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            for folder in folders + ["/usr/bin"] {
                let candidate = folder + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// Loads `page` (a file) with `arguments` added (`--dump-dom`, `--screenshot=…`), off the
    /// cooperative pool: the wait blocks a thread for seconds.
    static func run(_ executable: String, page: URL, arguments: [String]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(executable, page: page, arguments: arguments) })
            }
        }
    }

    private static func runBlocking(_ executable: String, page: URL, arguments: [String]) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let netLog = folder + "/netlog.json"
        let flags = [
            "--headless", "--no-sandbox",  // root in a container: Chromium's sandbox cannot start
            "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
            "--user-data-dir=\(folder)/profile",
            // Console messages (CSP refusals among them) go to stderr as "CONSOLE" lines.
            "--enable-logging=stderr", "--v=0",
            "--log-net-log=\(netLog)", "--net-log-capture-mode=Default",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            // Quiet the browser's own traffic; what remains is told apart from the page's by its initiator.
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--no-pings",
            "--hide-scrollbars",
        ]
        let child = try spawn(
            executable, flags + arguments + [page.absoluteString], environment: ["HOME": folder],
            stdout: folder + "/stdout", stderr: folder + "/stderr")
        let (status, timedOut) = wait(child, deadline: Date().addingTimeInterval(deadlineSeconds))
        return Outcome(
            exitCode: status, timedOut: timedOut,
            stdout: (try? String(contentsOfFile: folder + "/stdout", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "",
            netLog: (try? String(contentsOfFile: netLog, encoding: .utf8)) ?? "")
    }

    /// Starts the browser as the leader of a new process group (so it and its helpers can be killed
    /// together), standard input from /dev/null, nothing else of ours inherited.
    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stdout: String, stderr: String
    ) throws -> pid_t {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        SpawnActions.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Waits for the browser until `deadline`, then kills its process group. The group is killed
    /// before the leader is reaped, while its id cannot have been reused: helpers left behind go too.
    private static func wait(_ pid: pid_t, deadline: Date) -> (status: Int32, timedOut: Bool) {
        var timedOut = false
        while true {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            // Linux zeroes `info` when no child has exited yet (WNOHANG); an exit fills in SIGCHLD.
            if result == 0 && info.si_signo == SIGCHLD { break }
            if result < 0 && errno != EINTR { break }
            if Date() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
                break
            }
            usleep(50_000)
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return (-1, timedOut) }
        }
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, timedOut)
    }

    /// Console messages and refusals in the browser's log: a page with no script should print none.
    static func consoleProblems(in stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            line.contains(":CONSOLE") || line.contains("Refused to") || line.contains("Content Security Policy")
                || line.contains("Uncaught")
        }
    }

    /// The URLs of requests the page made (or tried to), from the net log. The browser's own
    /// traffic (updates, time, accounts) has no origin ("not an origin") and is left out; the page's
    /// requests carry the page's origin, which for a file is "null".
    static func pageRequests(in netLog: String) throws -> [String] {
        guard let data = netLog.data(using: .utf8),
            let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let constants = root["constants"] as? [String: Any],
            let types = constants["logEventTypes"] as? [String: Int],
            let startJob = types["URL_REQUEST_START_JOB"],
            let events = root["events"] as? [[String: Any]]
        else { throw Failure(description: "the net log is not the JSON Chromium writes (\(netLog.prefix(200)))") }
        var urls: [String] = []
        for event in events where (event["type"] as? Int) == startJob {
            guard let parameters = event["params"] as? [String: Any], let url = parameters["url"] as? String else { continue }
            let initiator = parameters["initiator"] as? String ?? ""
            if initiator == "not an origin" { continue }
            urls.append(url)
        }
        return urls
    }
}
