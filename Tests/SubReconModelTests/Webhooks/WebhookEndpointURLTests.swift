@testable import SubReconModel
import Testing

@Suite("Webhook endpoint URL")
struct WebhookEndpointURLTests {
    static let setting = "SUBRECON_WEBHOOK_URL / --webhook-url"

    @Test("https anywhere and http to loopback are accepted, kept as given", arguments: [
        ("https://example.com/x", "example.com", nil as Int?),
        ("HTTPS://Hooks.Example.com:8443/a/b?c=d&e=f", "Hooks.Example.com", 8443),
        ("http://127.0.0.1:9/x", "127.0.0.1", 9),
        ("http://127.200.3.4/", "127.200.3.4", nil),
        ("http://localhost/x", "localhost", nil),
        ("http://LOCALHOST:8080", "LOCALHOST", 8080),
        ("http://[::1]:8/x", "::1", 8),
        ("http://[0:0:0:0:0:0:0:1]/", "0:0:0:0:0:0:0:1", nil),
        ("https://[2001:db8::5]/hook", "2001:db8::5", nil),
    ])
    func accepted(text: String, host: String, port: Int?) throws {
        let url = try WebhookEndpointURL(text, setting: Self.setting)
        #expect(url.text == text)
        #expect(url.description == text)
        #expect(url.host == host)
        #expect(url.port == port)
    }

    @Test("anything else is refused naming the setting", arguments: [
        "http://example.com/x", "http://0.0.0.0/x", "http://10.0.0.1/", "http://128.0.0.1/", "http://127.0.0.1.example.com/",
        "http://127.1/", "http://[::2]/", "http://[::ffff:127.0.0.1]/", "http://localhost.example.com/",
        "ftp://127.0.0.1/", "example.com/x", "https:/example.com", "https://", "https:///x", "https://exa mple.com/",
        "https://example.com:0/", "https://example.com:65536/", "https://example.com:/", "https://example.com:x/",
        "https://user:pw@example.com/", "http://127.0.0.1@example.com/", "https://[::1/", "https://[::1]x/", "https://[1::2::3]/",
        "https://exämple.com/", "",
    ])
    func refused(text: String) {
        #expect {
            try WebhookEndpointURL(text, setting: Self.setting)
        } throws: { error in
            (error as? ConfigurationError)?.description.hasPrefix(Self.setting + " must be an https:// URL") == true
        }
    }

    @Test func loopbackHosts() {
        #expect(WebhookEndpointURL.isLoopback(host: "127.0.0.1"))
        #expect(WebhookEndpointURL.isLoopback(host: "127.255.255.255"))
        #expect(WebhookEndpointURL.isLoopback(host: "::1"))
        #expect(WebhookEndpointURL.isLoopback(host: "0::1"))
        #expect(WebhookEndpointURL.isLoopback(host: "Localhost"))
        #expect(!WebhookEndpointURL.isLoopback(host: "0.0.0.0"))
        #expect(!WebhookEndpointURL.isLoopback(host: "::"))
        #expect(!WebhookEndpointURL.isLoopback(host: "127.0.0.256"))
        #expect(!WebhookEndpointURL.isLoopback(host: "127.0.0"))
        #expect(!WebhookEndpointURL.isLoopback(host: "example.com"))
    }
}
