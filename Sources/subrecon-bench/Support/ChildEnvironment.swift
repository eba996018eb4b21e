import Foundation

/// The environment children start with: the benchmark's own, minus every `SUBRECON_` setting
/// (a secret file set by the caller would clash with the secret the benchmark passes).
enum ChildEnvironment {
    static func base() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SUBRECON_") }
    }
}
