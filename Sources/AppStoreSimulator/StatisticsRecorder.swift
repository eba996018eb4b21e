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

    func recordAnswer(httpStatus: Int, appleStatus: Int?) {
        counters.withLock {
            $0.answersByHTTPStatus[httpStatus, default: 0] += 1
            if let appleStatus {
                $0.answersByAppleStatus[appleStatus, default: 0] += 1
            }
        }
    }

    func recordFault(_ step: FaultStep) {
        counters.withLock { $0.faultsInjected[step.name, default: 0] += 1 }
    }

    func snapshot() -> SimulatorStatistics {
        counters.withLock { $0 }
    }

    func reset() {
        counters.withLock { $0 = SimulatorStatistics() }
    }
}
