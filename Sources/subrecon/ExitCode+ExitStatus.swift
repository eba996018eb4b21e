import ArgumentParser
import SubRecon

extension ExitCode {
    /// The contract's exit status, by name rather than number.
    init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
