import Foundation

/// The real binary run as a child process: timed, with its CPU and peak RSS.
enum ReportRuns {
    /// `--repeat` runs of one command on one store.
    struct Measured {
        var seconds: [Double] = []
        var cpu: [Double] = []
        var peakKilobytes = 0

        var median: Double { seconds.sorted()[seconds.count / 2] }

        /// `  STORE: NAME: 1.23 s median [1.20, 1.23, 1.30], CPU 1.10 s, peak RSS 42.0 MB`
        func line(_ store: String, _ name: String) -> String {
            "  \(store): \(name): "
                + "\(BenchFormat.fixed(median, 2)) s median [\(seconds.map { BenchFormat.fixed($0, 2) }.joined(separator: ", "))], CPU \(BenchFormat.fixed(cpu.sorted()[cpu.count / 2], 2)) s, peak RSS \(BenchFormat.megabytes(kilobytes: peakKilobytes))"
        }

        /// The time and peak RSS targets of this measurement.
        func checks(_ name: String, limitSeconds: Double, limitMegabytes: Int = 150) -> [TargetCheck] {
            [
                TargetCheck(
                    name: name, measured: "\(BenchFormat.fixed(median, 2)) s", limit: "≤ \(BenchFormat.fixed(limitSeconds, 0)) s",
                    met: median <= limitSeconds),
                TargetCheck(
                    name: "\(name) peak RSS", measured: BenchFormat.megabytes(kilobytes: peakKilobytes),
                    limit: "≤ \(limitMegabytes) MB", met: peakKilobytes <= limitMegabytes * 1024),
            ]
        }
    }

    /// Runs `arguments` `times` times; an exit status outside `accepted` breaks the benchmark.
    static func measure(
        _ binary: String, _ arguments: [String], _ environment: [String: String], _ folder: String, times: Int,
        name: String, accepted: Set<Int32> = [0]
    ) async throws -> Measured {
        var measured = Measured()
        for _ in 0..<times {
            let watch = Stopwatch()
            let result = try await run(binary, arguments, environment, folder)
            guard let code = result.exit.code, accepted.contains(code) else {
                throw ChildProcess.SpawnError(description: "\(name) failed: \(result.stderr)")
            }
            measured.seconds.append(watch.seconds)
            measured.cpu.append(result.exit.cpuSeconds)
            measured.peakKilobytes = max(measured.peakKilobytes, result.exit.peakRSSKilobytes)
        }
        return measured
    }

    /// One run; its standard output in `folder`/report.out, its standard error returned.
    static func run(_ binary: String, _ arguments: [String], _ environment: [String: String], _ folder: String)
        async throws -> (exit: ChildProcess.Exit, stderr: String)
    {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let child = try ChildProcess.spawn(
            executable: binary, arguments: arguments, environment: env, stdoutPath: folder + "/report.out",
            stderrPath: folder + "/report.err")
        let exit = await child.waitOffTheCooperativePool()
        let stderr = (try? String(contentsOfFile: folder + "/report.err", encoding: .utf8)) ?? ""
        return (exit, stderr)
    }
}
