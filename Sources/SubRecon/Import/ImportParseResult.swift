import SubReconModel

/// What ``ImportFileParser/parse(_:)`` found in one file.
///
/// The contract says a file with any bad row imports nothing: callers must check that
/// ``problems`` is empty before storing ``rows``.
public struct ImportParseResult: Sendable, Equatable {
    /// The good rows, in file order.
    public var rows: [ImportRow]
    /// One entry per bad record (or the header), in file order.
    public var problems: [ImportProblem]

    /// Creates a result.
    public init(rows: [ImportRow], problems: [ImportProblem]) {
        self.rows = rows
        self.problems = problems
    }
}
