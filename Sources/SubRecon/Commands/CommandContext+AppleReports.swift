import AppleSignedData
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

extension AppleReportFetcher.Outcome {
    /// 0 when every day was answered (stored, no sales, or not published yet), else 1: the next
    /// fetch asks for what is missing.
    public var exitStatus: ExitStatus { allAnswered ? .success : .incomplete }
}

extension CommandContext {
    /// `subrecon apple-reports fetch`: Apple's daily Summary Sales Reports of the window, one
    /// request at a time, each day stored in one transaction. Prints each day as it is answered,
    /// then the summary line (and, on stderr, what stopped the fetch early).
    /// - Parameters:
    ///   - since: first Pacific-time day, inclusive (default: 7 days before `until`).
    ///   - until: last Pacific-time day, exclusive (default: today in Pacific time).
    ///   - refetch: ask also for days stored as final.
    public func fetchAppleReports(
        since: String?, until: String?, refetch: Bool, flags: AppStoreConnectSettings.Flags
    ) async throws -> AppleReportFetcher.Outcome {
        var warnings: [String] = []
        let window = try AppleReportWindow.parse(since: since, until: until, nowMs: clock())
        let settings = try AppStoreConnectSettings.resolve(environment: environment, flags: flags, warnings: &warnings)
        for warning in warnings { output.warning(warning) }
        let store = try await openStore(ifMissing: .create)
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let client = SalesReportClient(
            baseURL: settings.baseURL, vendorNumber: settings.vendorNumber,
            tokens: BearerTokenProvider(teamKey: settings.key, clock: clock), transport: transport, logger: logger)
        let fetcher = AppleReportFetcher(
            store: store, client: client, vendorNumber: settings.vendorNumber, clock: clock, logger: logger)
        let outcome: AppleReportFetcher.Outcome
        do {
            outcome = try await fetcher.fetch(window, refetch: refetch) { day, result in
                output.out("\(day.text)  \(AppleReportLines.text(result))\n")
            }
        } catch let error as any OperatorFacingError {
            throw error
        } catch {
            throw ConfigurationError.other("\(error)")
        }
        await store.close()
        output.out(AppleReportLines.summary(outcome, window: window) + "\n")
        if let stopped = outcome.stoppedBy { output.message(stopped.description) }
        return outcome
    }

    /// `subrecon apple-reports import FILE...`: Summary Sales Reports downloaded by hand, every
    /// file checked before any is stored.
    public func importAppleReports(_ files: [String], vendorNumberFlag: String?) async throws -> [AppleReportImporter.Imported] {
        let vendor = try AppStoreConnectSettings.vendorNumber(environment: environment, flag: vendorNumberFlag)
        let store = try await openStore(ifMissing: .create)
        let imported = try await AppleReportImporter(store: store, vendorNumber: vendor, clock: clock).importFiles(files)
        await store.close()
        return imported
    }
}
