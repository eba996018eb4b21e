import Foundation

/// `subrecon simulator` running as its own process, so its CPU time can be read apart from the
/// worker's and the benchmark's.
struct SimulatorProcess {
    let process: ChildProcess
    let productionURL: String
    let sandboxURL: String
    /// The App Store Server API base URLs (`http://127.0.0.1:PORT` and `…/sandbox`).
    let serverAPIURL: String?
    let serverAPISandboxURL: String?

    /// Starts `subrecon simulator --port 0 --latency-ms L [--shared-secret-file F] [extra…]` and
    /// waits for the URLs it prints.
    static func start(
        subrecon: String, latencyMs: Int, secretFile: String?, folder: String, extraArguments: [String] = []
    ) throws -> SimulatorProcess {
        let stdoutPath = folder + "/simulator.out"
        var arguments = ["simulator", "--port", "0", "--latency-ms", "\(latencyMs)"]
        if let secretFile { arguments += ["--shared-secret-file", secretFile] }
        let process = try ChildProcess.spawn(
            executable: subrecon, arguments: arguments + extraArguments,
            environment: ChildProcess.baseEnvironment(), stdoutPath: stdoutPath, stderrPath: folder + "/simulator.err")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let production = Self.url(after: "production:", in: text),
                let sandbox = Self.url(after: "sandbox:", in: text)
            {
                let api = Self.serverAPIURLs(in: text)
                return SimulatorProcess(
                    process: process, productionURL: production, sandboxURL: sandbox, serverAPIURL: api?.production,
                    serverAPISandboxURL: api?.sandbox)
            }
            if let status = Self.exitedEarly(process) {
                let errors = (try? String(contentsOfFile: folder + "/simulator.err", encoding: .utf8)) ?? ""
                let how = status & 0x7f == 0 ? "with exit code \((status >> 8) & 0xff)" : "on signal \(status & 0x7f)"
                throw ChildProcess.SpawnError(description: "the simulator ended \(how) before listening: \(errors)")
            }
            usleep(10_000)
        }
        process.terminate(SIGKILL)
        _ = process.wait()
        throw ChildProcess.SpawnError(description: "the simulator printed no URLs within 30 s")
    }

    func cpuSeconds() -> Double { process.cpuSecondsSoFar() ?? 0 }

    func peakRSSKilobytes() -> Int { process.peakRSSKilobytesSoFar() ?? 0 }

    func stop() {
        process.terminate()
        _ = process.wait()
    }

    private static func url(after label: String, in text: String) -> String? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(label) {
                let value = trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
                return value.hasPrefix("http") ? value : nil
            }
        }
        return nil
    }

    /// From `Server API: http://127.0.0.1:P (sandbox http://127.0.0.1:P/sandbox)`.
    private static func serverAPIURLs(in text: String) -> (production: String, sandbox: String)? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Server API:") }) else { return nil }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" }).map(String.init)
        let urls = words.filter { $0.hasPrefix("http") }
        return urls.count == 2 ? (urls[0], urls[1]) : nil
    }

    /// The exit status if the process has already ended (reaped here), else nil.
    private static func exitedEarly(_ process: ChildProcess) -> Int32? {
        var status: Int32 = 0
        return waitpid(process.pid, &status, WNOHANG) == process.pid ? status : nil
    }
}
