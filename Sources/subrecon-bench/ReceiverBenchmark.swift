import Foundation

/// The receiver under load from this process: `notifications serve` as a child (its CPU and RSS
/// read from /proc), `connections` keep-alive connections through libcurl multi, closed loop.
struct ReceiverBenchmark {
    var bodiesFile: String?
    var connections: Int
    var seconds: Int
    var database: String?
    var receiverArguments: [String]
    var url: String?
    var subreconPath: String
    var keep: Bool

    func run() async throws {
        let bodies = try loadBodies()
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: keep) }
        print("machine: \(BenchMachine.description); receiver and load share its cores, figures vary with the host and its load")
        let source = bodiesFile.map { "\(BenchFormat.grouped(bodies.count)) bodies from \($0)" }
            ?? "\(bodies.count) synthetic bodies (the real intake refuses them: the HTTP path alone)"
        print("receiver: \(connections) keep-alive connections for \(seconds) s, \(source)")

        var receiver: ReceiverProcess?
        if url == nil {
            receiver = try ReceiverProcess.start(
                subrecon: subreconPath, arguments: ["--db", database ?? folder + "/receiver.sqlite"] + receiverArguments,
                folder: folder)
        }
        guard let target = url ?? receiver?.url else { return }
        let rssBefore = receiver?.process.residentKilobytesNow()
        let cpuBefore = receiver?.process.cpuSecondsSoFar()
        let ownBefore = ChildProcess.ownCPUSeconds()

        let load = await ReceiverLoad.drive(url: target, bodies: bodies, connections: connections, duration: .seconds(seconds))

        let rssAfter = receiver?.process.residentKilobytesNow()
        let peak = receiver?.process.peakRSSKilobytesSoFar()
        let cpuAfter = receiver?.process.cpuSecondsSoFar()
        let exit = await receiver?.stop()

        print(BenchFormat.line("target", target))
        print(BenchFormat.line("requests", "\(BenchFormat.grouped(load.requests)) in \(BenchFormat.fixed(load.seconds)) s, \(BenchFormat.fixed(Double(load.requests) / load.seconds, 1)) requests/s"))
        print(BenchFormat.line(
            "latency", "p50 \(BenchFormat.fixed(load.percentileMilliseconds(0.5))) ms, p99 \(BenchFormat.fixed(load.percentileMilliseconds(0.99))) ms, max \(BenchFormat.fixed(load.percentileMilliseconds(1))) ms"))
        let answers = load.outcomes.sorted { $0.value > $1.value }.map { "\($0.key): \(BenchFormat.grouped($0.value))" }
        print(BenchFormat.line("answers", answers.joined(separator: ", ")))
        if let rssBefore, let rssAfter {
            print(BenchFormat.line(
                "receiver RSS", "\(BenchFormat.megabytes(kilobytes: rssBefore)) at start, \(BenchFormat.megabytes(kilobytes: rssAfter)) at end, peak \(BenchFormat.megabytes(kilobytes: peak ?? 0))"))
        }
        if let cpuBefore, let cpuAfter {
            print(BenchFormat.line(
                "receiver CPU", "\(BenchFormat.fixed(cpuAfter - cpuBefore)) s (\(BenchFormat.fixed((cpuAfter - cpuBefore) / load.seconds * 100, 0)) % of one core)"))
        }
        print(BenchFormat.line("load CPU", "\(BenchFormat.fixed(ChildProcess.ownCPUSeconds() - ownBefore)) s (this process: libcurl + tasks)"))
        if let exit {
            print(BenchFormat.line("receiver stop", "SIGTERM: \(exit.description)"))
        }
    }

    /// The `--bodies` file's non-empty lines, or synthetic bodies of a signed notification's size
    /// (~5 KB: three certificates in the header, the payload, the signature).
    private func loadBodies() throws -> [[UInt8]] {
        guard let bodiesFile else {
            return (0..<16).map { index in
                let filler = String(repeating: "QUJD", count: 1_200) + String(index)
                return Array(#"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.\#(filler).c2ln"}"#.utf8)
            }
        }
        guard let data = FileManager.default.contents(atPath: bodiesFile) else {
            throw ChildProcess.SpawnError(description: "cannot read \(bodiesFile)")
        }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { line in
            Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...])
        }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw ChildProcess.SpawnError(description: "\(bodiesFile) holds no body") }
        return lines
    }
}
