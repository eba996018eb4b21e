import Foundation

/// The same closed loop driven by wrk (a common HTTP load tool) instead of this process's libcurl
/// lanes: a load generator that is not ours, to check the bench's own latency figures against
/// (they agree; wrk, its Lua script formatting each request, uses more CPU than the libcurl lanes:
/// docs/performance.md, "Notifications receiver"). `scripts/wrk-receiver.lua`
/// posts the bodies in turn from the first (`in-order`), on one wrk thread, so each is sent once
/// while there are more bodies than requests, oldest signedDate first as the lanes send them.
enum ReceiverWrkLoad {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func drive(
        wrk: String, script: String, url: String, bodies: [[UInt8]], connections: Int, seconds: Int, folder: String
    ) async throws -> ReceiverBenchmark.Figures {
        let bodiesPath = folder + "/wrk-bodies.jsonl"
        var text = Data()
        for body in bodies {
            text.append(contentsOf: body)
            text.append(UInt8(ascii: "\n"))
        }
        try text.write(to: URL(fileURLWithPath: bodiesPath))
        let output = folder + "/wrk.out"
        let process = try ChildProcess.spawn(
            executable: wrk,
            arguments: ["-t1", "-c\(connections)", "-d\(seconds)s", "--timeout", "30s", "-s", script, url, "--", bodiesPath, "in-order"],
            environment: ChildProcess.baseEnvironment(), stdoutPath: output, stderrPath: folder + "/wrk.err")
        let exit = await process.waitOffTheCooperativePool()
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard exit.code == 0 else {
            let errors = (try? String(contentsOfFile: folder + "/wrk.err", encoding: .utf8)) ?? ""
            throw Failure(description: "wrk: \(exit.description): \(errors)\(report)")
        }
        guard var load = parse(report) else {
            throw Failure(description: "wrk: no figures in its output:\n\(report)")
        }
        load.loadCPUSeconds = exit.cpuSeconds
        load.ranOut = load.requests > bodies.count
        // wrk does not count the requests in flight when it stops: one a connection may be stored.
        load.unanswered = connections + load.transportErrors
        return load
    }

    /// The lines `scripts/wrk-receiver.lua` writes when wrk is done.
    static func parse(_ report: String) -> ReceiverBenchmark.Figures? {
        var load = ReceiverBenchmark.Figures(
            requests: 0, seconds: 0, p50Milliseconds: 0, p99Milliseconds: 0, maxMilliseconds: 0, outcomes: [:],
            ranOut: false, unanswered: 0, loadCPUSeconds: 0, loadName: "wrk, one thread")
        var sawTotals = false
        var sawLatency = false
        for line in report.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ").map(String.init)
            if line.hasPrefix("answers:") {
                // answers: 200: 61234, 503: 2
                for part in line.dropFirst("answers:".count).split(separator: ",") {
                    let pair = part.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
                    if pair.count == 2, let count = Int(pair[1]) { load.outcomes[pair[0], default: 0] += count }
                }
            } else if line.hasPrefix("requests "), words.count >= 5, let count = Int(words[1]), let micros = Double(words[3]) {
                // requests 61234 in 60001234 us
                load.requests = count
                load.seconds = micros / 1_000_000
                sawTotals = true
            } else if line.hasPrefix("errors "), words.count >= 2 {
                // errors connect 0 read 0 write 0 timeout 0
                for index in stride(from: 1, to: words.count - 1, by: 2) {
                    if let count = Int(words[index + 1]), count > 0 { load.outcomes["error: \(words[index])", default: 0] += count }
                }
            } else if line.hasPrefix("p50 "), words.count >= 9 {
                // p50 31.20 ms, p99 45.10 ms, max 120.00 ms
                guard let p50 = Double(words[1]), let p99 = Double(words[4]), let max = Double(words[7]) else { continue }
                (load.p50Milliseconds, load.p99Milliseconds, load.maxMilliseconds) = (p50, p99, max)
                sawLatency = true
            }
        }
        return sawTotals && sawLatency ? load : nil
    }
}
