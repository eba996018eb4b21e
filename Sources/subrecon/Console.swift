import Foundation
import SubRecon

/// Writing to the terminal, in one place.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("subrecon: " + message + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// The console as the library writes to it.
    static let output = CommandOutput(standardOutput: .standardOutput, message: { error($0) })
}
