
/// Builds Prometheus exposition text: one `# HELP`/`# TYPE` per metric name, then its samples.
/// The run's metrics file and the notification receiver's `/metrics` both write through it.
public struct MetricsText: Sendable {
    public private(set) var text = ""
    private var declared: Set<String> = []

    public init() {}

    public mutating func gauge(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Double) {
        declare(name, help, type: "gauge")
        sample(name, labels, value)
    }

    /// A counter: `name` should end in `_total`, as Prometheus expects.
    public mutating func counter(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Double) {
        declare(name, help, type: "counter")
        sample(name, labels, value)
    }

    /// A histogram: cumulative `_bucket{le=…}` samples (ending with `+Inf`), then `_sum` and `_count`.
    /// `bucketCounts` are per bucket (not cumulative), one per upper bound, plus one for `+Inf`.
    public mutating func histogram(
        _ name: String, _ help: String, upperBounds: [Double], bucketCounts: [UInt64], sum: Double
    ) {
        precondition(bucketCounts.count == upperBounds.count + 1, "one count per bound, plus +Inf")
        declare(name, help, type: "histogram")
        var cumulative: UInt64 = 0
        for (index, count) in bucketCounts.enumerated() {
            cumulative += count
            let bound = index < upperBounds.count ? Self.number(upperBounds[index]) : "+Inf"
            sample(name + "_bucket", [("le", bound)], Double(cumulative))
        }
        sample(name + "_sum", [], sum)
        sample(name + "_count", [], Double(cumulative))
    }

    private mutating func declare(_ name: String, _ help: String, type: String) {
        if declared.insert(name).inserted {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
    }

    private mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        let labelText = labels.isEmpty
            ? "" : "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
        text += "\(name)\(labelText) \(Self.number(value))\n"
    }

    /// Whole numbers without a fraction (`3`, not `3.0`), others as Swift prints them.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
