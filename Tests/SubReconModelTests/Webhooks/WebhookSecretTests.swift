import Foundation
@testable import SubReconModel
import Testing

@Suite("Webhook secret")
struct WebhookSecretTests {
    /// Standard Webhooks' example secret (24 bytes).
    static let example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let exampleKey: [UInt8] = Array(Data(base64Encoded: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!)
    static let setting = "SUBRECON_WEBHOOK_SECRET_FILE / --webhook-secret-file"

    func problem(_ contents: String) -> String? {
        do {
            _ = try WebhookSecret.parseFile(contents: contents, path: "/etc/hooks.secret", setting: Self.setting)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func oneSecretPerNonEmptyLineInFileOrder() throws {
        let other = WebhookSecret.generate()
        let secrets = try WebhookSecret.parseFile(
            contents: "\n\(Self.example)\r\n  \n  \(other)  \n", path: "s", setting: Self.setting)
        #expect(secrets.count == 2)
        #expect(secrets[0].keyBytes == Self.exampleKey)
        #expect(secrets[1].keyBytes == Array(Data(base64Encoded: String(other.dropFirst(6)))!))
    }

    @Test func paddedAndUnpaddedBase64AreBothAccepted() throws {
        let bytes = (0..<32).map { UInt8($0) }
        let padded = "whsec_" + Data(bytes).base64EncodedString()
        #expect(padded.hasSuffix("="))
        #expect(try WebhookSecret(text: padded).keyBytes == bytes)
        #expect(try WebhookSecret(text: String(padded.dropLast())).keyBytes == bytes)
    }

    @Test("a bad line is refused naming the file, the setting and the line, never the secret", arguments: [
        ("\(example)\nMfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", 2, "does not start with whsec_"),
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa-_\n", 1, "not whsec_ followed by standard base64"),
        ("whsec_MfKQ9r8G KYqrTwjUPD8ILPZIo2LaLaSw\n", 1, "not whsec_ followed by standard base64"),
        ("whsec_\n", 1, "not whsec_ followed by standard base64"),
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La\n", 1, "decodes to 21 bytes"),
        ("\n\n\(example)\n\nWHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 5, "does not start with whsec_"),
        ("\(example)\r\n\r\nwhsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La\r\n", 3, "decodes to 21 bytes"),
    ])
    func badLines(contents: String, line: Int, reason: String) throws {
        let message = try #require(problem(contents))
        #expect(message.contains("/etc/hooks.secret"))
        #expect(message.contains(Self.setting))
        #expect(message.contains("line \(line):"))
        #expect(message.contains(reason))
        #expect(!message.contains("MfKQ9r8G"))
    }

    @Test func anEmptyFileIsRefused() throws {
        for contents in ["", "\n", "  \n\t\n"] {
            let message = try #require(problem(contents))
            #expect(message.contains("/etc/hooks.secret"))
            #expect(message.contains("is empty"))
        }
    }

    @Test func printingNeverShowsTheKey() throws {
        let secret = try WebhookSecret(text: Self.example)
        struct Holder { var secrets: [WebhookSecret] }
        var dumped = ""
        dump(Holder(secrets: [secret]), to: &dumped)
        for text in [
            "\(secret)", String(reflecting: secret), String(describing: Holder(secrets: [secret])), dumped,
            String(reflecting: [secret]),
        ] {
            #expect(text.contains("redacted"))
            #expect(!text.contains("MfKQ"))
            #expect(!text.contains("49"))  // 0x31, the first key byte, as a decimal array element
        }
    }

    @Test func generatedSecretsAreValidAndDiffer() throws {
        let first = WebhookSecret.generate()
        let second = WebhookSecret.generate()
        #expect(first != second)
        #expect(first.hasPrefix("whsec_"))
        #expect(first.count == 6 + 44)
        #expect(try WebhookSecret(text: first).keyBytes.count == 32)
    }
}
