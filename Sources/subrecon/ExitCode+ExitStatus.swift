import ArgumentParser
import Foundation
import SubRecon
import SubReconModel

/// A command that has said all it had to say and ends with a status other than success (a run
/// with receipts still due, differences found): nothing more is printed.
struct CommandEnded: Error {
    var status: ExitStatus

    /// Ends the command with `status`, unless it is success.
    static func with(_ status: ExitStatus) throws {
        if status != .success { throw CommandEnded(status: status) }
    }
}

extension Subrecon {
    /// How a command's error ends the process, in one place: an operator-facing error prints its
    /// lines and exits with its status; ArgumentParser's usage errors exit 2 (the contract's code
    /// for usage errors; ArgumentParser's own is 64); anything else is left to ArgumentParser.
    static func exit(for error: any Error) -> Never {
        switch error {
        case let error as any OperatorFacingError:
            for line in error.lines { Console.error(line) }
            exit(with: error.exitStatus)
        case let ended as CommandEnded:
            exit(with: ended.status)
        default:
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(with: .configuration)
            }
            exit(withError: error)
        }
    }

    /// The contract's status as the process's exit code: the one place an `ExitStatus` becomes
    /// ArgumentParser's `ExitCode`.
    static func exit(with status: ExitStatus) -> Never {
        exit(withError: ExitCode(status.rawValue))
    }
}
