import AppleSignedData
import Foundation
import Testing
import X509

/// Files under `Fixtures/signed-data/` (see its README for where each comes from).
enum SignedDataFixtures {
    static func text(_ name: String) throws -> String {
        let directory = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/signed-data")
        let url = directory.appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A certificate stored as one line of standard base64 DER.
    static func certificate(_ name: String) throws -> Certificate {
        let der = try #require(Base64.decode(try text(name)))
        return try Certificate(derEncoded: der)
    }
}
