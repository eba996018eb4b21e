import Foundation

/// Where a command's words go: standard output, and sentences for the operator on standard
/// error. The executable passes its console; an entry point writes through it what must show as
/// it happens (a run's summary line, a day fetched, a warning), even when a later step fails.
public struct CommandOutput: Sendable {
    /// Standard output: lines, CSV, JSON, as given.
    public var standardOutput: FileHandle
    /// One sentence for standard error; the executable marks it as subrecon's.
    public var message: @Sendable (String) -> Void

    public init(standardOutput: FileHandle, message: @escaping @Sendable (String) -> Void) {
        self.standardOutput = standardOutput
        self.message = message
    }

    /// `text` on standard output, as given (with its own newlines).
    public func out(_ text: String) { standardOutput.write(Data(text.utf8)) }

    /// Something the operator should know that does not stop the command.
    public func warning(_ text: String) { message("warning: " + text) }
}
