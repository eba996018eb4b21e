import Foundation
import SubReconModel

/// Secret files (the shared secret, the API key, the database password): read once, first line
/// only, with a warning when others may read them. Below the store because the database password
/// is one of them.
package enum SecretFile {
    /// A secret file's first line without surrounding blanks (the shared secret, the database
    /// password); a file group or others can read adds a warning. Errors are the caller's, so each
    /// names its own file.
    package static func firstLine(
        ofSecretFile path: String, what: String, warnings: inout [String], unreadable: (_ reason: String) -> ConfigurationError,
        empty: ConfigurationError
    ) throws(ConfigurationError) -> String {
        let contents: String
        do {
            contents = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw unreadable(FileManager.default.fileExists(atPath: path) ? "permission denied or not UTF-8" : "no such file")
        }
        // Split on any line break: in Swift "\r\n" is one Character, so splitting on "\n" misses it.
        let firstLine = contents.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard !firstLine.isEmpty else { throw empty }
        if let warning = readableByOthersWarning(path, what: what) { warnings.append(warning) }
        return firstLine
    }

    /// A warning when group or others may read a secret file (the shared secret, the API key).
    package static func readableByOthersWarning(_ path: String, what: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = attributes[.posixPermissions] as? NSNumber, mode.intValue & 0o077 != 0
        else { return nil }
        return "\(what) \(path) can be read by group or others (mode \(String(mode.intValue, radix: 8))); chmod 600 it"
    }
}
