import AppStoreSimulator
import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// The receiver under load from this process: `notifications serve` as a child (its CPU and RSS
/// read from /proc), `connections` keep-alive connections through libcurl multi, closed loop.
struct ReceiverBenchmark {
    /// Where the bodies come from.
    enum Bodies {
        /// The real load (`ReceiverWorkload`): a fresh store holding `history` earlier
        /// notifications, `count` signed notifications for `subscribers` imported subscribers,
        /// each sent once.
        case generate(count: Int, subscribers: Int, history: Int)
        /// A JSON Lines file, sent in turn (again and again).
        case file(String)
        /// Bodies of a notification's size that the intake refuses: the HTTP path alone.
        case synthetic
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var bodies: Bodies
    var connections: Int
    /// Requests a second, open loop (nil: closed loop, each connection sends again once answered).
    var rate: Double?
    var seconds: Int
    var database: String?
    /// With `.generate`: a database of its own on this server instead of a SQLite file.
    var postgres: BenchPostgres?
    var receiverArguments: [String]
    var url: String?
    var subreconPath: String
    var keep: Bool
    /// wrk and its Lua script drive the load instead of this process (`ReceiverWrkLoad`).
    var wrk: (executable: String, script: String)?

    /// What a load gave, whichever drove it.
    struct Figures {
        var requests: Int
        var seconds: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var outcomes: [String: Int]
        /// With `sendEachOnce`: the bodies ran out before the time was up.
        var ranOut: Bool
        /// Requests that may have been stored without their answer being counted: transport
        /// errors, and with wrk the requests in flight when it stopped (one a connection).
        var unanswered: Int
        var loadCPUSeconds: Double
        var loadName: String

        /// Requests that ended in a transport error ("error: …" outcomes).
        var transportErrors: Int { outcomes.filter { $0.key.hasPrefix("error") }.values.reduce(0, +) }
    }

    func run() async throws {
        let folder = try BenchFolder.make()
        defer { BenchFolder.remove(folder, keep: keep) }
        print("machine: \(BenchMachine.description); receiver and load share its cores, figures vary with the host and its load")
        if keep { print(BenchFormat.line("folder", folder)) }
        guard case .generate(let count, let subscribers, let history) = bodies else {
            let (bodies, source) = try loadBodies()
            print("receiver: \(connections) keep-alive connections for \(seconds) s, \(source)")
            // The simulator's app unless a --receiver-argument says otherwise (flags win).
            var settings = ["SUBRECON_BUNDLE_ID": SimulatedProducts.bundleID]
            if url == nil { settings["SUBRECON_DB"] = database ?? folder + "/receiver.sqlite" }
            _ = try await measure(bodies: bodies, settings: settings, sendEachOnce: false, folder: folder)
            return
        }
        let storeName = postgres == nil ? "SQLite" : "PostgreSQL"
        print("receiver: \(connections) keep-alive connections for \(seconds) s\(rate.map { ", open loop at \(BenchFormat.grouped(Int($0))) requests/s" } ?? ""), \(BenchFormat.grouped(count)) signed notifications (each sent once) for \(BenchFormat.grouped(subscribers)) subscribers, \(storeName)")
        guard let postgres else {
            try await generated(
                count: count, subscribers: subscribers, history: history, store: .sqlite(path: folder + "/receiver.sqlite"),
                folder: folder)
            return
        }
        let database = try await postgres.createDatabase()
        print(BenchFormat.line("database", BenchPostgres.url(database)))
        do {
            try await generated(count: count, subscribers: subscribers, history: history, store: .postgres(database), folder: folder)
            if !keep { try await postgres.dropDatabase(database) }
        } catch {
            if !keep { try? await postgres.dropDatabase(database) }
            throw error
        }
    }

    /// The real load on `store`, then what the store holds: every 200 must be one stored row.
    private func generated(count: Int, subscribers: Int, history: Int, store: DatabaseLocation, folder: String) async throws {
        let workload = try await ReceiverWorkload.prepare(
            count: count, subscribers: subscribers, history: history, store: store, folder: folder)
        let load = try await measure(
            bodies: workload.bodies, settings: workload.receiverEnvironment, sendEachOnce: true, folder: folder)
        let recorded = try await workload.recorded()
        let ok = load.outcomes["200"] ?? 0
        let outcomes = recorded.outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \(BenchFormat.grouped($0.value))" }
        print(BenchFormat.line(
            "stored", "\(BenchFormat.grouped(recorded.rows)) notifications (\(outcomes.joined(separator: ", "))), \(BenchFormat.grouped(recorded.deliveries)) deliveries, for \(BenchFormat.grouped(ok)) answers 200"))
        if load.ranOut {
            print("receiver: the load outran the \(BenchFormat.grouped(count)) notifications before \(seconds) s and stopped (each is sent once); the figures cover \(BenchFormat.fixed(load.seconds)) s: rerun with a larger --generate")
        }
        // A request cut off by the stop may be stored without its 200 reaching us: more rows
        // than 200s is possible only beside transport errors; fewer is a lost notification.
        if recorded.rows < ok || recorded.rows > ok + load.unanswered || recorded.deliveries != recorded.rows {
            throw Failure(description: "receiver: \(ok) answers 200 but \(recorded.rows) notifications stored with \(recorded.deliveries) deliveries: not every 200 stored exactly once")
        }
        print(BenchFormat.line("check", "every 200 is one stored notification, each delivered once"))
    }

    /// Starts the receiver (unless --url), drives the load, prints the figures.
    private func measure(
        bodies: [[UInt8]], settings: [String: String], sendEachOnce: Bool, folder: String
    ) async throws -> Figures {
        var receiver: ReceiverProcess?
        if url == nil {
            receiver = try ReceiverProcess.start(
                subrecon: subreconPath, arguments: receiverArguments, settings: settings, folder: folder)
        }
        guard let target = url ?? receiver?.url else { throw Failure(description: "receiver: no URL") }
        let rssBefore = receiver?.process.residentKilobytesNow()
        let cpuBefore = receiver?.process.cpuSecondsSoFar()
        let ownBefore = ChildProcess.ownCPUSeconds()

        async let rssMid = Self.residentKilobytes(of: receiver, after: .milliseconds(seconds * 500))
        let load: Figures
        if let wrk {
            load = try await ReceiverWrkLoad.drive(
                wrk: wrk.executable, script: wrk.script, url: target, bodies: bodies, connections: connections,
                seconds: seconds, folder: folder)
        } else {
            let driven = await ReceiverLoad.drive(
                url: target, bodies: bodies, connections: connections, duration: .seconds(seconds), sendEachOnce: sendEachOnce,
                rate: rate)
            var figures = Figures(
                requests: driven.requests, seconds: driven.seconds, p50Milliseconds: driven.percentileMilliseconds(0.5),
                p99Milliseconds: driven.percentileMilliseconds(0.99), maxMilliseconds: driven.percentileMilliseconds(1),
                outcomes: driven.outcomes, ranOut: driven.ranOut, unanswered: 0,
                loadCPUSeconds: ChildProcess.ownCPUSeconds() - ownBefore, loadName: "this process: libcurl + tasks")
            figures.unanswered = figures.transportErrors
            load = figures
        }
        let rssMiddle = await rssMid
        let rssAfter = receiver?.process.residentKilobytesNow()
        let peak = receiver?.process.peakRSSKilobytesSoFar()
        let cpuAfter = receiver?.process.cpuSecondsSoFar()
        let exit = await receiver?.stop()

        print(BenchFormat.line("target", target))
        print(BenchFormat.line("requests", "\(BenchFormat.grouped(load.requests)) in \(BenchFormat.fixed(load.seconds)) s, \(BenchFormat.fixed(Double(load.requests) / load.seconds, 1)) requests/s"))
        print(BenchFormat.line(
            "latency", "p50 \(BenchFormat.fixed(load.p50Milliseconds)) ms, p99 \(BenchFormat.fixed(load.p99Milliseconds)) ms, max \(BenchFormat.fixed(load.maxMilliseconds)) ms"))
        let answers = load.outcomes.sorted { $0.value > $1.value }.map { "\($0.key): \(BenchFormat.grouped($0.value))" }
        print(BenchFormat.line("answers", answers.joined(separator: ", ")))
        if let rssBefore, let rssAfter {
            print(BenchFormat.line(
                "receiver RSS", "\(BenchFormat.megabytes(kilobytes: rssBefore)) at start, \(rssMiddle.map { BenchFormat.megabytes(kilobytes: $0) } ?? "?") halfway, \(BenchFormat.megabytes(kilobytes: rssAfter)) at end, peak \(BenchFormat.megabytes(kilobytes: peak ?? 0))"))
        }
        if let cpuBefore, let cpuAfter {
            print(BenchFormat.line(
                "receiver CPU", "\(BenchFormat.fixed(cpuAfter - cpuBefore)) s (\(BenchFormat.fixed((cpuAfter - cpuBefore) / load.seconds * 100, 0)) % of one core)"))
        }
        print(BenchFormat.line("load CPU", "\(BenchFormat.fixed(load.loadCPUSeconds)) s (\(load.loadName))"))
        if let exit {
            print(BenchFormat.line("receiver stop", "SIGTERM: \(exit.description)"))
        }
        return load
    }

    /// The receiver's RSS after `delay` (halfway through the load: memory flat?).
    private static func residentKilobytes(of receiver: ReceiverProcess?, after delay: Duration) async -> Int? {
        try? await Task.sleep(for: delay)
        return receiver?.process.residentKilobytesNow()
    }

    /// The `--bodies` file's non-empty lines, or synthetic bodies of a signed notification's size
    /// (~5 KB: three certificates in the header, the payload, the signature).
    private func loadBodies() throws -> (bodies: [[UInt8]], source: String) {
        guard case .file(let bodiesFile) = bodies else {
            let synthetic = (0..<16).map { index in
                let filler = String(repeating: "QUJD", count: 1_200) + String(index)
                return Array(#"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.\#(filler).c2ln"}"#.utf8)
            }
            return (synthetic, "\(synthetic.count) synthetic bodies (the real intake refuses them: the HTTP path alone)")
        }
        guard let data = FileManager.default.contents(atPath: bodiesFile) else {
            throw ChildProcess.SpawnError(description: "cannot read \(bodiesFile)")
        }
        let lines = data.split(separator: UInt8(ascii: "\n")).map { line in
            Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...])
        }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw ChildProcess.SpawnError(description: "\(bodiesFile) holds no body") }
        return (lines, "\(BenchFormat.grouped(lines.count)) bodies from \(bodiesFile), sent in turn")
    }
}
