import SubReconModel

/// The app's App Store shared secret. Its `description` is redacted, so string interpolation in a
/// log line or an error can never print it; only the request body builder reads `value`.
public struct SharedSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<shared secret redacted>" }
    public var debugDescription: String { description }
    /// Keeps `dump()` and reflection from listing the stored value.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
