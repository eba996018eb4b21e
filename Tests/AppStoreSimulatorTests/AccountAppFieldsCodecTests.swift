import AppStoreSimulator
import Foundation
import Testing

/// The account's app and app account token in the receipt's account text: written only when not
/// the defaults (so every other receipt keeps its exact text), and then with one spelling.
@Suite struct AccountAppFieldsCodecTests {
    static let token = "7389a31a-fb6d-4569-a2a6-db7d85d84813"

    static func account(bundleID: String? = nil, storefront: SimulatedStorefront = .usa) -> SimulatedSubscriber {
        SimulatedSubscriber(
            id: 5, storefront: storefront, receiptCreatedMs: 1_000,
            subscriptions: [SimulatedSubscription(productID: "p.m", periodMs: 60_000, firstPurchaseMs: 1_000)],
            paddingBytes: 4, bundleID: bundleID)
    }

    @Test func theDefaultTokenIsTheDerivedOneAndSettingItBackKeepsTheAccountEqual() {
        var account = Self.account()
        #expect(account.appAccountToken == ServerAPIIdentifiers.appAccountToken(subscriberID: 5))
        account.appAccountToken = Self.token.uppercased()
        #expect(account.appAccountToken == Self.token, "kept lowercase, as Apple sends it")
        account.appAccountToken = ""
        #expect(account.appAccountToken == nil, "empty is none")
        account.appAccountToken = ServerAPIIdentifiers.appAccountToken(subscriberID: 5)
        #expect(account == Self.account())
    }

    @Test(arguments: [
        ("app named", "com.example.beta", "derived"),
        ("no token", nil, "none"),
        ("chosen token", nil, "chosen"),
        ("both, another storefront", "com.example.beta", "chosen"),
    ] as [(String, String?, String)])
    func roundTrips(name: String, bundleID: String?, token: String) throws {
        var account = Self.account(bundleID: bundleID, storefront: name.contains("storefront") ? .jpn : .usa)
        switch token {
        case "none": account.appAccountToken = nil
        case "chosen": account.appAccountToken = Self.token
        default: break
        }
        let decoded = try #require(SimulatedReceipt.decode(SimulatedReceipt.encode(account)), "\(name)")
        #expect(decoded == account, "\(name)")
        #expect(decoded.bundleID == bundleID && decoded.appAccountToken == account.appAccountToken, "\(name)")
    }

    /// The app fields follow the storefront, which is then written even when it is the default.
    @Test func textOfTheAppFieldsIsPinnedAndCanonical() throws {
        var account = Self.account(bundleID: "com.example.beta")
        account.appAccountToken = Self.token
        let text = try #require(SimulatedReceiptCodecTests.text(of: SimulatedReceipt.encode(account)))
        let body = "5,Production,PURCHASED,1000,~,4,0,USA,com.example.beta," + Self.token
            + ";p.m,60000,1000,~,~,~,~,~,~,~,~,~,~,~,~"
        #expect(text == body + "#" + SimulatedReceiptCodecTests.checksum(body))
        let receiptBundleID = try SimulatedReceiptCodecTests.attributes(of: SimulatedReceipt.encode(account))
            .first { $0.type == 2 }?.value
        #expect(receiptBundleID.map { String(decoding: $0.dropFirst(2), as: UTF8.self) } == "com.example.beta")

        let derived = ServerAPIIdentifiers.appAccountToken(subscriberID: 5)
        let spellings: [(String, SimulatedSubscriber?)] = [
            (body.replacingOccurrences(of: "," + Self.token, with: ",~"), {
                var noToken = Self.account(bundleID: "com.example.beta")
                noToken.appAccountToken = nil
                return noToken
            }()),
            (body.replacingOccurrences(of: "," + Self.token, with: ","), Self.account(bundleID: "com.example.beta")),
            // The defaults written out, the derived token spelled, upper case, a lone app field.
            (body.replacingOccurrences(of: "com.example.beta," + Self.token, with: "~,"), nil),
            (body.replacingOccurrences(of: Self.token, with: derived), nil),
            (body.replacingOccurrences(of: Self.token, with: Self.token.uppercased()), nil),
            (body.replacingOccurrences(of: "," + Self.token, with: ""), nil),
        ]
        for (spelling, expected) in spellings {
            #expect(spelling != body)
            #expect(SimulatedReceipt.decode(SimulatedReceiptCodecTests.receipt(body: spelling, paddingBytes: 4)) == expected, "\(spelling)")
        }
    }

    /// An account with neither field set keeps the text it had before they existed.
    @Test func accountsWithoutTheFieldsKeepTheirText() throws {
        let text = try #require(SimulatedReceiptCodecTests.text(of: SimulatedReceipt.encode(Self.account())))
        #expect(text.hasPrefix("5,Production,PURCHASED,1000,~,4,0;"))
        let abroad = try #require(SimulatedReceiptCodecTests.text(of: SimulatedReceipt.encode(Self.account(storefront: .deu))))
        #expect(abroad.hasPrefix("5,Production,PURCHASED,1000,~,4,0,DEU;"))
    }
}
