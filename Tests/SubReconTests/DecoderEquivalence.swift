import Foundation

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// How the single-pass decoder (`VerifyReceiptResponse.decode`) and the Foundation one it replaced
/// (`FoundationAnswerDecoder`) treated the same body. Only two outcomes are allowed: the same,
/// or Foundation accepting a body that is not well-formed JSON, which the new decoder rejects.
enum DecoderEquivalence: Hashable, CustomStringConvertible {
    /// Both decoded it to equal values.
    case same
    case bothRejected
    /// Foundation read it although it is not well-formed JSON; the new decoder rejected it.
    /// Foundation checks a string or a number only when a decoded field asks for it, and takes
    /// trailing commas: an unread garbled value, or a read one that then counted as absent, passed.
    case foundationAcceptedMalformedJSON
    /// Anything else is a bug in the new decoder.
    case differs(String)

    var description: String {
        switch self {
        case .same: "same"
        case .bothRejected: "both rejected"
        case .foundationAcceptedMalformedJSON: "Foundation accepted malformed JSON"
        case .differs(let detail): "differs: \(detail)"
        }
    }

    /// Decodes `body` with Foundation and compares with `scanned`, the new decoder's result.
    static func compare(_ body: [UInt8], scanned: Result<VerifyReceiptResponse, AppStoreAnswerError>) -> DecoderEquivalence {
        let foundation = Result { () throws(AppStoreAnswerError) in try FoundationAnswerDecoder.decode(body) }
        switch (foundation, scanned) {
        case (.success(let old), .success(let new)):
            return old == new ? .same : .differs("Foundation read \(old), the scanner read \(new)")
        case (.failure, .failure):
            return .bothRejected
        case (.success, .failure):
            return isMalformedJSON(body)
                ? .foundationAcceptedMalformedJSON : .differs("the scanner rejected a well-formed body Foundation read")
        case (.failure, .success(let new)):
            return .differs("the scanner read \(new) from a body Foundation rejected")
        }
    }

    static func compare(_ body: [UInt8]) -> DecoderEquivalence {
        compare(body, scanned: Result { () throws(AppStoreAnswerError) in try VerifyReceiptResponse.decode(body) })
    }

    /// An opinion independent of both decoders: JSONSerialization builds every value (so it
    /// rejects bad strings, escapes and numbers wherever they are) but takes trailing commas,
    /// which are looked for separately.
    static func isMalformedJSON(_ body: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(body), options: .fragmentsAllowed)) == nil || hasTrailingComma(body)
    }

    /// A `,` outside strings followed (after whitespace) by `}` or `]`.
    static func hasTrailingComma(_ body: [UInt8]) -> Bool {
        var inString = false
        var escaped = false
        for (index, byte) in body.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            guard byte == UInt8(ascii: ",") else { continue }
            let next = body[(index + 1)...].first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
            if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") { return true }
        }
        return false
    }
}
