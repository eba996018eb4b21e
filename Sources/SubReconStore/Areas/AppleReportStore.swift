import SubReconModel

/// Apple's Summary Sales Reports, a day at a time (`apple-reports fetch|import`).
public protocol AppleReportStore: Sendable {
    /// Stores one day of Apple's Summary Sales Report in one transaction, replacing any copy of
    /// that day stored before (`apple-reports fetch|import`).
    func storeAppleReport(_ report: AppleReportDay, nowMs: Int64) async throws(StoreError) -> AppleReportStoreResult
}
