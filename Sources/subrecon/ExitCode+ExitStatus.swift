import ArgumentParser
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

extension ExitCode {
    /// The contract's exit status, by name rather than number.
    init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
