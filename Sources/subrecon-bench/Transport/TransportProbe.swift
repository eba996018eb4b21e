import AppStoreSimulator
import Foundation
import SubReconHTTP

/// The HTTP path alone, to tell where time goes: the same receipts POSTed through the same
/// libcurl-multi transport, `concurrency` at a time, against `subrecon simulator` — no database,
/// no decoding, no pipeline. Wall ÷ ideal here against the full run's shows what the rest costs.
struct TransportProbe {
    var requests: Int
    var latencyMs: Int
    var concurrency: Int
    var paddingBytes: Int
    var subreconPath: String

    func run() async throws {
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: false) }
        let secretFile = folder + "/shared-secret"
        _ = FileManager.default.createFile(
            atPath: secretFile, contents: Data("probe\n".utf8), attributes: [.posixPermissions: 0o600])
        let simulator = try SimulatorProcess.start(
            subrecon: subreconPath, latencyMs: latencyMs, secretFile: secretFile, folder: folder,
            extraArguments: ["--no-register-verified-receipts"])
        defer { simulator.stop() }
        // Production receipts only (a sandbox one would answer 21007 and count as a request too).
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: paddingBytes)
        var bodies: [[UInt8]] = []
        var index: Int64 = 0
        while bodies.count < min(requests, 1000) {
            if mix.kind(of: index) != .sandbox {
                let data = mix.row(index).receiptData
                bodies.append(Array(#"{"receipt-data":"\#(data)","password":"probe","exclude-old-transactions":true}"#.utf8))
            }
            index += 1
        }
        let transport = CurlTransport(maxConnections: concurrency)
        defer { transport.shutdown() }
        let url = simulator.productionURL
        let simulatorBefore = simulator.cpuSeconds()
        let ownBefore = ChildProcess.ownCPUSeconds()
        let watch = Stopwatch()
        let failures = await withTaskGroup(of: Int.self) { group -> Int in
            let perLane = requests / concurrency
            let extra = requests % concurrency
            for lane in 0..<concurrency {
                let count = perLane + (lane < extra ? 1 : 0)
                let laneBodies = bodies
                group.addTask {
                    var failed = 0
                    for i in 0..<count {
                        let body = laneBodies[(lane + i * concurrency) % laneBodies.count]
                        let request = HTTPRequest(
                            url: url, headers: [("Content-Type", "application/json")], body: body, timeout: .seconds(30))
                        if (try? await transport.send(request))?.status != 200 { failed += 1 }
                    }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
        let seconds = watch.seconds
        let ideal = Double(requests) * Double(latencyMs) / 1000 / Double(concurrency)
        print("transport probe: \(BenchFormat.grouped(requests)) requests, latency \(latencyMs) ms, concurrency \(concurrency), padding \(paddingBytes) B")
        print(BenchFormat.line("wall", BenchFormat.fixed(seconds) + " s, \(BenchFormat.fixed(Double(requests) / seconds, 1)) requests/s, \(failures) failed"))
        print(BenchFormat.line("client CPU", "\(BenchFormat.fixed(ChildProcess.ownCPUSeconds() - ownBefore)) s (this process: libcurl + tasks)"))
        print(BenchFormat.line("simulator CPU", "\(BenchFormat.fixed(simulator.cpuSeconds() - simulatorBefore)) s"))
        if latencyMs > 0 {
            print(BenchFormat.line("ratio to ideal", "\(BenchFormat.fixed(seconds / ideal, 3)) (ideal \(BenchFormat.fixed(ideal)) s)"))
        }
    }
}
