import Foundation

/// `subrecon simulator` running as its own process, so its CPU time can be read apart from the
/// worker's and the benchmark's.
struct SimulatorProcess {
    let process: ChildProcess
    let productionURL: String
    let sandboxURL: String

    /// Starts `subrecon simulator --port 0 --latency-ms L --shared-secret-file F` and waits for the
    /// URLs it prints.
    static func start(subrecon: String, latencyMs: Int, secretFile: String, folder: String) throws -> SimulatorProcess {
        let stdoutPath = folder + "/simulator.out"
        let process = try ChildProcess.spawn(
            executable: subrecon,
            arguments: ["simulator", "--port", "0", "--latency-ms", "\(latencyMs)", "--shared-secret-file", secretFile],
            environment: ChildEnvironment.base(), stdoutPath: stdoutPath, stderrPath: folder + "/simulator.err")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let production = Self.url(after: "production:", in: text),
                let sandbox = Self.url(after: "sandbox:", in: text)
            {
                return SimulatorProcess(process: process, productionURL: production, sandboxURL: sandbox)
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

    /// The exit status if the process has already ended (reaped here), else nil.
    private static func exitedEarly(_ process: ChildProcess) -> Int32? {
        var status: Int32 = 0
        return waitpid(process.pid, &status, WNOHANG) == process.pid ? status : nil
    }
}
