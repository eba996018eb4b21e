
/// Why one record (or the header) of an import file was rejected.
public struct ImportProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file name as the operator gave it, or `<stdin>`.
    public var sourceName: String
    /// The 1-based physical line where the record starts (1 for header problems).
    public var line: Int
    /// An operator-facing sentence; never contains receipt data.
    public var reason: String

    /// Creates a problem report.
    public init(sourceName: String, line: Int, reason: String) {
        self.sourceName = sourceName
        self.line = line
        self.reason = reason
    }

    /// `FILE:LINE: reason`, the contract's format, one per bad row.
    public var description: String { "\(sourceName):\(line): \(reason)" }
}
