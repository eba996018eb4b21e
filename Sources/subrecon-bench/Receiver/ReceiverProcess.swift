import Foundation

/// `subrecon notifications serve --port 0` running as its own process, so its CPU and memory are
/// measured apart from the load the benchmark drives.
struct ReceiverProcess {
    let process: ChildProcess
    let url: String

    /// Starts it with `arguments` after `--port 0` and `settings` (SUBRECON_*) added to the
    /// benchmark's environment, and waits for the URL it prints.
    static func start(
        subrecon: String, arguments: [String], settings: [String: String] = [:], folder: String
    ) throws -> ReceiverProcess {
        let stdoutPath = folder + "/receiver.out"
        let process = try ChildProcess.spawn(
            executable: subrecon, arguments: ["notifications", "serve", "--port", "0"] + arguments,
            environment: ChildProcess.baseEnvironment().merging(settings) { $1 }, stdoutPath: stdoutPath, stderrPath: folder + "/receiver.err")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http") }) {
                return ReceiverProcess(process: process, url: String(line))
            }
            var status: Int32 = 0
            if waitpid(process.pid, &status, WNOHANG) == process.pid {
                let errors = (try? String(contentsOfFile: folder + "/receiver.err", encoding: .utf8)) ?? ""
                throw ChildProcess.SpawnError(description: "the receiver ended before listening: \(errors)")
            }
            usleep(10_000)
        }
        process.terminate(SIGKILL)
        _ = process.wait()
        throw ChildProcess.SpawnError(description: "the receiver printed no URL within 30 s")
    }

    /// SIGTERM (a graceful stop, as systemd does) and how it ended.
    func stop() async -> ChildProcess.Exit {
        process.terminate()
        return await process.waitOffTheCooperativePool()
    }
}
