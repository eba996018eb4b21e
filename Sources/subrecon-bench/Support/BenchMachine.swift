import Foundation

/// What the figures were measured on, printed with them: they vary with the host and its load.
enum BenchMachine {
    static var description: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let model = firstValue(of: "model name", in: "/proc/cpuinfo") ?? "unknown CPU"
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
        return "\(cores) cores (\(model)), load average \(load.isEmpty ? "unknown" : load)"
    }

    private static func firstValue(of key: String, in path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }
}
