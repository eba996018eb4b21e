import Foundation
/// One target (the target columns of docs/performance.md) and whether a measurement met it.
/// Printed as PASS/MISS; never an exit code (figures are information, not a test).
struct TargetCheck: Sendable {
    var name: String
    var measured: String
    var limit: String
    var met: Bool

    var verdict: String { met ? "PASS" : "MISS" }

    var line: String {
        "  \(verdict)  \(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(measured) (target \(limit))"
    }
}
