import AppStoreSimulator
import Foundation
import GRDB
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore
import Synchronization

/// The per-receipt CPU of each stage of a run, measured one stage at a time in this process with
/// no HTTP in between: building the request, the simulator's answer, decoding it, and reconciling
/// and writing it (snapshot reads, the pure reconciler, the writes, the commit) in batches as the
/// run does. Where `throughput` says how fast the whole is, this says which part to make cheaper.
struct StagesBenchmark {
    var receipts: Int
    var batchSize: Int
    var paddingBytes: Int
    /// Also time every SQL statement of the write stage (SQLite's own profile), by statement.
    var profileSQL = false

    struct Stage {
        var name: String
        var cpuSeconds: Double
        var count: Int
        /// Part of one run's path (the total); false for the second run's write.
        var inTotal = true
        var microsecondsEach: Double { count > 0 ? cpuSeconds / Double(count) * 1e6 : 0 }
    }

    func run() async throws -> [Stage] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-stages-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mix = ReceiptMix(nowMs: SimulatedClock.wallNowMs(), paddingBytes: paddingBytes)
        let path = folder + "/subrecon.sqlite"
        _ = try ReceiptSeeder(source: mix, nowMs: mix.nowMs).seedSubreconDatabase(path: path, count: receipts)
        let database = try AppDatabase.open(path: path)
        let nowMs = SimulatedClock.wallNowMs()
        let stored = try await database.receipts(.all, after: .start, limit: receipts, nowMs: nowMs)
        var stages: [Stage] = []

        let secretText = "stages-secret"
        let secret = SharedSecret(secretText)
        var start = ChildProcess.ownCPUSeconds()
        let bodies = stored.map { VerifyReceiptClient.requestBody(receiptData: $0.receiptData, secret: secret) }
        stages.append(Stage(name: "request body", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: bodies.count))

        // Sandbox receipts are answered 21007 at production and asked again at the sandbox, as Apple does.
        let responder = VerifyReceiptResponder(sharedSecret: secretText)
        start = ChildProcess.ownCPUSeconds()
        var answers: [[UInt8]] = []
        answers.reserveCapacity(bodies.count)
        var calls = 0
        for body in bodies {
            var answer = responder.respond(to: body, endpoint: SimulatorEndpoint.production, nowMs: nowMs)
            calls += 1
            if answer.appleStatus == 21007 {
                answer = responder.respond(to: body, endpoint: SimulatorEndpoint.sandbox, nowMs: nowMs)
                calls += 1
            }
            answers.append(answer.body)
        }
        stages.append(Stage(name: "simulator answer", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: calls))

        start = ChildProcess.ownCPUSeconds()
        var outcomes: [VerificationOutcome] = []
        outcomes.reserveCapacity(answers.count)
        for answer in answers { outcomes.append(Self.outcome(try VerifyReceiptResponse.decode(answer))) }
        stages.append(Stage(name: "decode answer", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: answers.count))

        start = ChildProcess.ownCPUSeconds()
        let digests = zip(stored, outcomes).map { receipt, outcome in ReceiptDigest(latestReceiptOf: outcome, sent: receipt) }
        stages.append(
            Stage(name: "hash new receipt", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: digests.count))

        let runID = try await database.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: receipts, nowMs: nowMs)
        let reconciler = ReceiptReconciler(products: [])
        let sqlProfile = SQLProfile()
        if profileSQL {
            try await database.writer.writeWithoutTransaction { db in
                db.trace(options: .profile) { event in
                    if case .profile(let statement, let duration) = event { sqlProfile.add(statement.sql, duration) }
                }
            }
        }
        // Writes every answer as a run does, in batches; the number of receipts written.
        func write(runID: Int64, nowMs: Int64) async throws -> Int {
            var written = 0
            for batchStart in stride(from: 0, to: stored.count, by: batchSize) {
                let range = batchStart..<min(stored.count, batchStart + batchSize)
                let batch = range.map { index in
                    ReceiptReconciliation(
                        receipt: stored[index], outcome: outcomes[index], reconciler: reconciler, nowMs: nowMs, runID: runID,
                        latestReceiptDigest: digests[index])
                }
                written += try await database.reconcile(batch, runID: runID, write: true, origin: EventOrigin(source: .run, runID: runID)).count
            }
            return written
        }
        start = ChildProcess.ownCPUSeconds()
        var written = try await write(runID: runID, nowMs: nowMs)
        stages.append(Stage(name: "reconcile + write", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: written))
        if profileSQL { sqlProfile.print(receipts: written) }

        // The steady state: a second run a minute later gets the same answers (nothing changed).
        let laterMs = nowMs + 60_000
        let secondRunID = try await database.startRun(kind: .nightly, targetUserID: nil, receiptsTotal: receipts, nowMs: laterMs)
        start = ChildProcess.ownCPUSeconds()
        written = try await write(runID: secondRunID, nowMs: laterMs)
        stages.append(
            Stage(name: "same answers again", cpuSeconds: ChildProcess.ownCPUSeconds() - start, count: written, inTotal: false))
        if profileSQL { sqlProfile.print(receipts: written) }
        return stages
    }

    /// What the client makes of an answer, for the statuses the benchmark's mix produces.
    static func outcome(_ answer: VerifyReceiptResponse) -> VerificationOutcome {
        switch answer.rawStatus {
        case 0, 21006: .answered(answer, environment: answer.environment ?? .production)
        case 21003: .invalid(appleStatus: 21003, environment: answer.environment)
        case 21010: .accountGone(environment: answer.environment)
        default: .failed(VerificationFailure(appleStatus: answer.rawStatus, message: "status \(answer.rawStatus)"))
        }
    }
}

/// Wall time SQLite spent in each statement (by its SQL text), summed over a stage.
final class SQLProfile: Sendable {
    private let totals = Mutex<[String: (count: Int, seconds: Double)]>([:])

    func add(_ sql: String, _ seconds: TimeInterval) {
        totals.withLock { $0[sql, default: (0, 0)].count += 1; $0[sql, default: (0, 0)].seconds += seconds }
    }

    /// Prints the totals so far per receipt, and starts over.
    func print(receipts: Int) {
        let rows = totals.withLock { totals in defer { totals = [:] }; return totals }.sorted { $0.value.seconds > $1.value.seconds }
        for (sql, total) in rows {
            let text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(70)
            Swift.print(BenchFormat.line(
                "  sql", "\(BenchFormat.fixed(total.seconds / Double(max(1, receipts)) * 1e6, 1)) µs per receipt, \(total.count)×: \(text)"))
        }
    }
}
