import AppStoreSimulator
import Foundation
import Logging

/// `subrecon demo`: the whole nightly path against the built-in App Store simulator, in a fresh
/// temporary database, with no secret and no network. A newcomer's first command.
public struct DemoRun: Sendable {
    let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    /// What the demo left behind, so the newcomer can keep exploring it.
    public struct Result: Sendable {
        public var databasePath: String
        public var summary: RunSummary
        public var subscriptionsCSV: String
    }

    public func run() async throws -> Result {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("subrecon-demo-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A throwaway secret shared by the simulator and the client: the password check is real.
        let secret = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let simulator = AppStoreSimulator(options: SimulatorOptions(sharedSecret: secret))
        _ = try await simulator.start()
        defer { Task { await simulator.stop() } }

        let nowMs = ReconciliationJob.wallClockMs()
        let importPath = folder + "/receipts.csv"
        try Self.sampleReceiptsCSV(nowMs: nowMs).write(toFile: importPath, atomically: true, encoding: .utf8)

        let databasePath = folder + "/subrecon.sqlite"
        let database = try AppDatabase.open(path: databasePath)
        _ = try await ReceiptImporter(database: database).importFile(path: importPath, format: .csv, nowMs: nowMs)

        let settings = Settings(
            databasePath: databasePath, sharedSecret: SharedSecret(secret),
            endpoints: VerifyReceiptEndpoints(production: simulator.productionURL, sandbox: simulator.sandboxURL),
            concurrency: 8, products: Set(SimulatedProducts.subscriptionProductIDs), requestTimeout: .seconds(10),
            caFile: nil, warnings: [])
        let job = ReconciliationJob(
            settings: settings, database: database, clock: { ReconciliationJob.wallClockMs() }, logger: logger)
        let summary = try await job.run(ReconciliationRun.Options(kind: .nightly, selection: .due))
        await simulator.stop()

        var csv = Data()
        try ReportExporter(database: database).export(.subscriptions) { csv.append($0) }
        return Result(databasePath: databasePath, summary: summary, subscriptionsCSV: String(decoding: csv, as: UTF8.self))
    }

    /// One user per simulator scenario (so every status appears), as an app server would export them.
    public static func sampleReceiptsCSV(nowMs: Int64) -> String {
        var lines = ["user_id,receipt_data,product_id,environment"]
        for (index, scenario) in SimulatedScenario.allCases.enumerated() {
            let subscriber = scenario.subscriber(id: Int64(1000 + index), nowMs: nowMs)
            let user = "demo-\(String(format: "%02d", index + 1))-\(scenario.rawValue)"
            let environment = scenario.environment == .sandbox ? "Sandbox" : ""
            // Half the receipts arrive without an environment hint, to show 21007 routing too.
            lines.append("\(user),\(SimulatedReceipt.encode(subscriber)),\(scenario.expectedProductID ?? ""),\(index % 2 == 0 ? "" : environment)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
