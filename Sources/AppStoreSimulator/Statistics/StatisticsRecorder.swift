import Synchronization

/// Thread-safe accumulation of `SimulatorStatistics`.
final class StatisticsRecorder: Sendable {
    private let counters = Mutex(SimulatorStatistics())

    func recordRequest(endpoint: SimulatorEndpoint?) {
        counters.withLock {
            $0.totalRequests += 1
            if let endpoint {
                $0.requestsByEndpoint[endpoint, default: 0] += 1
            } else {
                $0.unknownPathRequests += 1
            }
        }
    }

    /// A Server API request; nil endpoint = an `/inApps` path that is not served (counted unknown).
    func recordServerAPIRequest(_ route: ServerAPIRoute?) {
        counters.withLock {
            $0.totalRequests += 1
            if let route {
                $0.serverAPIRequestsByEndpoint[route.endpoint, default: 0] += 1
                $0.serverAPIRequestsByEnvironment[route.environment, default: 0] += 1
            } else {
                $0.unknownPathRequests += 1
            }
        }
    }

    func recordOtherRequest() {
        counters.withLock { $0.totalRequests += 1 }
    }

    func recordSalesReportRequest(reportDate: String?) {
        counters.withLock {
            $0.totalRequests += 1
            $0.salesReportRequests += 1
            if let reportDate { $0.salesReportRequestsByDate[reportDate, default: 0] += 1 }
        }
    }

    func recordSalesReportUnauthorized() {
        counters.withLock { $0.salesReportUnauthorized += 1 }
    }

    /// A Server API request the bearer check gave to app `bundleID`, at wall-clock `atMs`.
    func recordServerAPIRequest(app bundleID: String, atMs: Int64) {
        counters.withLock {
            $0.serverAPIRequestsByApp[bundleID, default: 0] += 1
            let span = $0.serverAPIRequestSpanByApp[bundleID]
            $0.serverAPIRequestSpanByApp[bundleID] = min(span?.lowerBound ?? atMs, atMs)...max(span?.upperBound ?? atMs, atMs)
        }
    }

    func recordRateLimited(app bundleID: String) {
        counters.withLock {
            $0.serverAPIRateLimited += 1
            $0.serverAPIRateLimitedByApp[bundleID, default: 0] += 1
        }
    }

    func recordUnauthorized() {
        counters.withLock { $0.serverAPIUnauthorized += 1 }
    }

    func recordRegistered(_ count: Int) {
        counters.withLock { $0.accountsRegisteredByPOST += count }
    }

    func recordAnswer(httpStatus: Int, appleStatus: Int?) {
        counters.withLock {
            $0.answersByHTTPStatus[httpStatus, default: 0] += 1
            if let appleStatus {
                $0.answersByAppleStatus[appleStatus, default: 0] += 1
            }
        }
    }

    func recordFault(_ step: FaultStep) {
        recordFault(named: step.name)
    }

    func recordFault(named name: String) {
        counters.withLock { $0.faultsInjected[name, default: 0] += 1 }
    }

    func snapshot() -> SimulatorStatistics {
        counters.withLock { $0 }
    }

    func reset() {
        counters.withLock { $0 = SimulatorStatistics() }
    }
}
