import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

@Suite("Receipt fingerprints")
struct ReceiptFingerprintTests {
    // FIPS 180-2 test vectors, plus a non-ASCII string (hashed as its UTF-8 bytes C3 A9; digest
    // from Python's hashlib).
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        ("é", "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"),
    ])
    func sha256Hex(input: String, expected: String) {
        #expect(ReceiptFingerprint.sha256Hex(input) == expected)
    }

    @Test func shortIsThePrefixOfTheFullDigest() {
        let receipt = String(repeating: "MIIT", count: 1100)
        let full = ReceiptFingerprint.sha256Hex(receipt)
        #expect(ReceiptFingerprint.short(receipt) == String(full.prefix(12)))
        #expect(full.allSatisfy { "0123456789abcdef".contains($0) })
    }

    /// The digest computed beside the decoding: only for a `latest_receipt` that differs from the
    /// receipt sent (only that is stored), and it is that receipt's SHA-256.
    @Test func aDigestIsMadeOnlyForNewReceiptData() {
        let sent = ReceiptToVerify(id: 1, userID: "u", receiptData: "MIIT-old", environment: nil)
        func answered(_ latest: String?) -> VerificationOutcome {
            .answered(VerifyReceiptResponse(rawStatus: 0, latestReceipt: latest), environment: .production)
        }
        let digest = ReceiptDigest(latestReceiptOf: answered("MIIT-new"), sent: sent)
        #expect(digest == ReceiptDigest(data: "MIIT-new"))
        #expect(digest?.sha256Hex == ReceiptFingerprint.sha256Hex("MIIT-new"))
        #expect(ReceiptDigest(latestReceiptOf: answered("MIIT-old"), sent: sent) == nil)
        #expect(ReceiptDigest(latestReceiptOf: answered(nil), sent: sent) == nil)
        #expect(ReceiptDigest(latestReceiptOf: .invalid(appleStatus: 21003, environment: nil), sent: sent) == nil)
    }
}
