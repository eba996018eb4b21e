import Foundation

/// One Standard Webhooks signing secret: `whsec_` + standard base64 of at least 24 random bytes.
/// Only the decoded key is kept, and nothing that prints or mirrors a secret shows it: errors,
/// logs and `dump` never reveal it.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public static let prefix = "whsec_"
    /// The fewest key bytes a secret may have (Standard Webhooks: 24 to 64 bytes).
    public static let minimumKeyBytes = 24
    /// What `generate()` draws.
    public static let generatedKeyBytes = 32

    /// The HMAC key: the bytes after `whsec_`, base64-decoded.
    public var keyBytes: [UInt8]

    public init(keyBytes: [UInt8]) {
        self.keyBytes = keyBytes
    }

    /// A secret in the `whsec_` form, or why it is not one (a reason that never quotes it).
    public init(text: String) throws(WebhookSecret.Problem) {
        let text = Substring(text).trimmingWhitespace()
        guard text.hasPrefix(Self.prefix) else { throw .noPrefix }
        let encoded = text.dropFirst(Self.prefix.count)
        guard let bytes = Self.decodeBase64(encoded) else { throw .notBase64 }
        guard bytes.count >= Self.minimumKeyBytes else { throw .tooShort(bytes.count) }
        keyBytes = bytes
    }

    /// Why a line is not a secret; the sentence never contains the line.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case noPrefix
        case notBase64
        case tooShort(Int)

        public var description: String {
            switch self {
            case .noPrefix: "does not start with \(WebhookSecret.prefix)"
            case .notBase64: "is not \(WebhookSecret.prefix) followed by standard base64"
            case .tooShort(let count):
                "decodes to \(count) bytes; a secret needs at least \(WebhookSecret.minimumKeyBytes) random bytes "
                    + "(`subrecon webhooks secret` makes one)"
            }
        }
    }

    /// A secret file's secrets, one per non-empty line, in file order (the first signs; during a
    /// rotation every one does). `setting` names where the path came from (a variable and flag,
    /// or an apps-file key and app). A problem names the path, the setting and the line number,
    /// never the line.
    public static func parseFile(contents: String, path: String, setting: String) throws(ConfigurationError)
        -> [WebhookSecret]
    {
        var secrets: [WebhookSecret] = []
        // Any line break: in Swift "\r\n" is one Character, so splitting on "\n" would miss it.
        let lines = contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() where !line.trimmingWhitespace().isEmpty {
            do {
                secrets.append(try WebhookSecret(text: String(line)))
            } catch {
                throw .other("the webhook secret file \(path) (\(setting)), line \(index + 1): \(error.description)")
            }
        }
        guard !secrets.isEmpty else {
            throw .other(
                "the webhook secret file \(path) (\(setting)) is empty: each line must be a secret, \(prefix) + base64 "
                    + "(`subrecon webhooks secret` makes one)")
        }
        return secrets
    }

    /// A new secret in the `whsec_` form: 32 bytes from the system's secure random source.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<generatedKeyBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64EncodedString()
    }

    /// Standard base64 (`+` and `/`), padded or not; nil for anything else (URL-safe letters,
    /// white space inside, a wrong padding).
    static func decodeBase64(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 != 1 else { return nil }
        let padded = text.count % 4 == 0 ? String(text) : String(text) + String(repeating: "=", count: 4 - text.count % 4)
        return Data(base64Encoded: padded).map { Array($0) }
    }

    public var description: String { Self.prefix + "…(redacted)" }
    public var debugDescription: String { description }
    /// No children: `dump` and reflection show the description only, never the key.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
