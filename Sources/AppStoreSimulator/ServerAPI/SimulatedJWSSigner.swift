import Crypto
import Foundation

/// Compact JWS the way Apple signs App Store data: `b64url(header).b64url(payload).b64url(sig)`,
/// header `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (x5c entries standard base64 of DER),
/// signature the 64-byte raw `R || S` of ECDSA P-256 / SHA-256 over the first two parts.
enum SimulatedJWSSigner {
    /// `base64url` of the JOSE header for `x5c`.
    static func encodedHeader(x5c: [String]) -> [UInt8] {
        var json = JSONByteWriter(capacity: 2048)
        json.beginObject()
        json.field("alg", "ES256")
        json.key("x5c")
        json.beginArray()
        for certificate in x5c {
            json.string(certificate)
        }
        json.endArray()
        json.endObject()
        return Base64URL.encode(json.bytes)
    }

    /// The compact JWS over `payload` (JSON bytes) with `chain`'s header and key.
    static func sign(payload: [UInt8], with chain: SimulatedSigningAuthority.SigningChain) -> [UInt8] {
        var token = chain.encodedHeader
        token.reserveCapacity(token.count + payload.count * 4 / 3 + 100)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(payload, appendingTo: &token)
        // Only fails for an unusable key, which the authority never makes.
        guard let signature = try? chain.signingKey.key.signature(for: token) else {
            preconditionFailure("P-256 signing failed")
        }
        token.append(UInt8(ascii: "."))
        Base64URL.encode(Array(signature.rawRepresentation), appendingTo: &token)
        return token
    }
}

/// base64url without padding (RFC 7515 §2), both ways. The simulator's own small copy: the
/// `AppleSignedData` module has its verifier's.
enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        encode(bytes, appendingTo: &output)
        return output
    }

    static func encode(_ bytes: [UInt8], appendingTo output: inout [UInt8]) {
        output.reserveCapacity(output.count + (bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let bits = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            output.append(alphabet[bits >> 18 & 0x3F])
            output.append(alphabet[bits >> 12 & 0x3F])
            output.append(alphabet[bits >> 6 & 0x3F])
            output.append(alphabet[bits & 0x3F])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let bits = Int(bytes[i]) << 16 | (rest == 2 ? Int(bytes[i + 1]) << 8 : 0)
            output.append(alphabet[bits >> 18 & 0x3F])
            output.append(alphabet[bits >> 12 & 0x3F])
            if rest == 2 { output.append(alphabet[bits >> 6 & 0x3F]) }
        }
    }

    static func encodeString(_ bytes: [UInt8]) -> String {
        String(decoding: encode(bytes), as: UTF8.self)
    }

    /// Decodes unpadded (or padded) base64url; nil for any other character.
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "-": standard.append("+")
            case "_": standard.append("/")
            case "+", "/": return nil
            default: standard.unicodeScalars.append(character)
            }
        }
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
