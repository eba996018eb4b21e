import Crypto
import Foundation
import SubRecon
import SubReconModel
import Testing

/// docs/webhooks.md is what a backend engineer copies from, so it is checked like code: every event
/// type has one example body that follows the contract (15 keys in order; `before`/`after`/`period`
/// with exactly the columns of `report subscriptions`/`report renewals` as this build has them, typed
/// as settled), the test vector is right, and the page's Python, Node and Swift verifiers accept a
/// genuine signature (also during a rotation) and refuse forgeries, run as the page prints them.
@Suite struct WebhooksDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let docPath = root.appendingPathComponent("docs/webhooks.md").path

    static func doc() throws -> String { try String(contentsOfFile: docPath, encoding: .utf8) }

    /// The fenced blocks of `language` in the page, in order.
    static func blocks(_ language: String, in text: String) -> [String] {
        text.components(separatedBy: "```\(language)\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    // MARK: - The examples

    @Test func everyEventTypeHasOneExampleThatFollowsTheContract() async throws {
        let expected = SubscriptionChange.Kind.allCases.map { "subscription." + $0.rawValue } + ["user.forgotten"]
        let columns = { (kind: ReportKind) in String(decoding: try JSONEncoder().encode(kind.columns), as: UTF8.self) }
        let check = try await Self.python(
            Self.exampleChecker, [Self.docPath, try columns(.subscriptions), try columns(.renewals)])
        #expect(check.exitCode == 0, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { !$0.hasPrefix("TYPES ") } == [], "docs/webhooks.md examples")
        let types = lines.first { $0.hasPrefix("TYPES ") }.map { $0.dropFirst(6).split(separator: ",").map(String.init) }
        #expect(types.map { Set($0) } == Set(expected))
        #expect(types?.count == expected.count, "one example per type")
    }

    /// Reads the page's JSON blocks that are event bodies and prints one line per deviation, then
    /// `TYPES` and the types seen. Python because its `json` keeps the keys' order.
    static let exampleChecker = #"""
        import json, re, sys
        doc = open(sys.argv[1], encoding="utf-8").read()
        sub_cols, ren_cols = json.loads(sys.argv[2]), json.loads(sys.argv[3])
        KEYS = ["id", "type", "created_at", "app", "environment", "user_id", "original_transaction_id", "seq",
                "position", "source", "run_id", "notification_uuid", "before", "after", "period"]
        SUB_INT = {"expires_date_ms", "cancellation_date_ms", "auto_renew_status", "is_in_billing_retry", "expiration_intent"}
        REN_INT = {"purchase_date_ms", "expires_date_ms", "cancellation_date_ms", "first_seen_run_id", "price_milliunits",
                   "offer_type", "revocation_percentage", "refund_milliunits"}
        SOURCES = {"run", "user", "purchase", "notification", "link", "token_link", "forget", "refund_request"}
        WITH_PERIOD = {"subscription.new", "subscription.renewed", "subscription.refunded"}
        problems, types, ids = [], [], set()

        def typed(where, row, cols, ints, bools):
            if list(row) != cols:
                problems.append(f"{where}: keys {list(row)} are not the columns {cols}")
            for key, value in row.items():
                if value is None:
                    continue
                want = int if key in ints else bool if key in bools else str
                if type(value) is not want:
                    problems.append(f"{where}.{key}: {value!r} is not {want.__name__}")

        for block in re.findall(r"```json\n(.*?)\n```", doc, re.S):
            body = json.loads(block)
            if not isinstance(body, dict) or list(body)[:1] != ["id"]:
                continue
            kind = body.get("type")
            types.append(kind)
            where = kind
            if list(body) != KEYS:
                problems.append(f"{where}: keys {list(body)}")
                continue
            if not re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", body["id"]) or body["id"] in ids:
                problems.append(f"{where}: id {body['id']} is not a fresh lower-case UUID")
            ids.add(body["id"])
            if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["created_at"]):
                problems.append(f"{where}: created_at {body['created_at']}")
            if body["source"] not in SOURCES:
                problems.append(f"{where}: source {body['source']}")
            if type(body["position"]) is not int:
                problems.append(f"{where}: position")
            if (body["notification_uuid"] is not None) != (body["source"] == "notification"):
                problems.append(f"{where}: notification_uuid must be set exactly for source notification")
            if body["source"] == "notification" and body["run_id"] is not None:
                problems.append(f"{where}: a notification has no run_id")
            if kind == "user.forgotten":
                nulls = ["environment", "original_transaction_id", "seq", "run_id", "notification_uuid", "before", "after", "period"]
                if any(body[key] is not None for key in nulls) or body["source"] != "forget":
                    problems.append(f"{where}: must be null: {nulls}, source forget")
                continue
            if type(body["seq"]) is not int or body["seq"] < 1:
                problems.append(f"{where}: seq")
            if body["source"] in ("run", "user", "link", "token_link") and type(body["run_id"]) is not int:
                problems.append(f"{where}: run_id")
            if (body["before"] is None) != (kind == "subscription.new"):
                problems.append(f"{where}: before is null exactly for subscription.new")
            if (body["period"] is not None) != (kind in WITH_PERIOD):
                problems.append(f"{where}: period is set exactly for new, renewed and refunded")
            for name in ("before", "after"):
                if body[name] is not None:
                    typed(f"{where}.{name}", body[name], sub_cols, SUB_INT, {"entitled"})
                    if body[name]["entitled"] != (body[name]["status"] in ("active", "grace_period")):
                        problems.append(f"{where}.{name}: entitled does not follow status")
            if body["after"] is None:
                problems.append(f"{where}: after")
            elif [body["after"]["user_id"], body["after"]["original_transaction_id"]] != [body["user_id"], body["original_transaction_id"]]:
                problems.append(f"{where}: after is another subscription")
            if body["period"] is not None:
                typed(f"{where}.period", body["period"], ren_cols, REN_INT, {"is_trial_period", "is_in_intro_offer_period"})
        print("\n".join(problems))
        print("TYPES " + ",".join(types))
        """#

    // MARK: - The test vector

    @Test func theTestVectorIsRight() throws {
        let text = try Self.doc()
        let id = "b5e3c1d2-7a44-4f0e-8c9b-2d1f6a3e5b77", timestamp = "1796094000"
        let body = #"{"id":"b5e3c1d2-7a44-4f0e-8c9b-2d1f6a3e5b77","type":"subscription.renewed","seq":2}"#
        let first = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let second = "whsec_" + Data((100..<132).map { UInt8($0) }).base64EncodedString()
        for needle in [first, second, body, id, timestamp] { #expect(text.contains(needle), "\(needle)") }
        let signatures = [first, second].map { Self.sign(secret: $0, id: id, timestamp: timestamp, body: Data(body.utf8)) }
        #expect(text.contains(signatures[0]))
        #expect(text.contains("`\(signatures[0]) \(signatures[1])`"))
    }

    // MARK: - The verifiers

    /// One request to verify, and whether a correct verifier holding `secret` accepts it.
    struct Case: Encodable {
        var secret: String
        var headers: [String: String]
        var body: String  // hex
        var accept: Bool
    }

    static func sign(secret: String, id: String, timestamp: String, body: Data) -> String {
        let key = SymmetricKey(data: Data(base64Encoded: String(secret.dropFirst(6)))!)
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).".utf8) + body, using: key)
        return "v1," + Data(mac).base64EncodedString()
    }

    /// Genuine requests during a rotation (either secret accepts), and forgeries: another secret, a
    /// changed body, another id, a stale or future timestamp, a signature under another version.
    static func cases(body: Data) -> [Case] {
        let old = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let new = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let stranger = "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let id = UUID().uuidString.lowercased()
        let now = String(Int(Date().timeIntervalSince1970))
        let stale = String(Int(Date().timeIntervalSince1970) - 600)
        let future = String(Int(Date().timeIntervalSince1970) + 600)
        let hex = { (data: Data) in data.map { String(format: "%02x", $0) }.joined() }
        func headers(_ signature: String, id: String = id, timestamp: String = now) -> [String: String] {
            ["webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature]
        }
        let both = sign(secret: old, id: id, timestamp: now, body: body) + " " + sign(secret: new, id: id, timestamp: now, body: body)
        var tampered = body
        tampered[tampered.startIndex] = UInt8(ascii: " ")
        let v2 = "v2," + sign(secret: new, id: id, timestamp: now, body: body).dropFirst(3)
        return [
            Case(secret: old, headers: headers(both), body: hex(body), accept: true),
            Case(secret: new, headers: headers(both), body: hex(body), accept: true),
            Case(secret: new, headers: headers(sign(secret: new, id: id, timestamp: now, body: body)), body: hex(body), accept: true),
            Case(secret: stranger, headers: headers(both), body: hex(body), accept: false),
            Case(secret: new, headers: headers(sign(secret: old, id: id, timestamp: now, body: body)), body: hex(body), accept: false),
            Case(secret: old, headers: headers(both), body: hex(tampered), accept: false),
            Case(secret: old, headers: headers(both, id: UUID().uuidString.lowercased()), body: hex(body), accept: false),
            Case(secret: old, headers: headers(sign(secret: old, id: id, timestamp: stale, body: body), timestamp: stale), body: hex(body), accept: false),
            Case(secret: old, headers: headers(sign(secret: old, id: id, timestamp: future, body: body), timestamp: future), body: hex(body), accept: false),
            Case(secret: new, headers: headers(v2), body: hex(body), accept: false),
        ]
    }

    /// A real event body from the page (the renewed example, as printed), with a non-ASCII user.
    static func sampleBody(_ text: String) throws -> Data {
        let example = try #require(blocks("json", in: text).first { $0.contains(#""type": "subscription.renewed""#) })
        return Data(example.replacingOccurrences(of: "8f14e45f", with: "jürgen-8f14").utf8)
    }

    @Test func thePagesVerifiersAcceptGenuineRequestsAndRefuseForgeries() async throws {
        let text = try Self.doc()
        let cases = Self.cases(body: try Self.sampleBody(text))
        let expected = cases.map { $0.accept ? "1" : "0" }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-doc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try JSONEncoder().encode(cases).write(to: URL(fileURLWithPath: folder + "/cases.json"))

        // Python by hand.
        let python = try #require(Self.blocks("python", in: text).first { $0.contains("def verify(") })
        try python.write(toFile: folder + "/by_hand.py", atomically: true, encoding: .utf8)
        let byHand = try await Self.python(
            """
            import importlib.util, json, sys
            spec = importlib.util.spec_from_file_location("by_hand", sys.argv[1])
            page = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(page)
            for case in json.load(open(sys.argv[2])):
                print("1" if page.verify(case["secret"], case["headers"], bytes.fromhex(case["body"])) else "0")
            """, [folder + "/by_hand.py", folder + "/cases.json"])
        #expect(byHand.stdout.split(separator: "\n").map(String.init) == expected, "Python by hand: \(byHand.stderr)")

        // Node.
        let node = try #require(Self.blocks("javascript", in: text).first { $0.contains("function verify(") })
        try (node + """

            const cases = JSON.parse(require("node:fs").readFileSync(process.argv[2]));
            for (const c of cases) console.log(verify(c.secret, c.headers, Buffer.from(c.body, "hex")) ? "1" : "0");
            """).write(toFile: folder + "/verify.js", atomically: true, encoding: .utf8)
        let nodeRun = try await SubreconBinary.run(
            ["node", folder + "/verify.js", folder + "/cases.json"], executable: "/usr/bin/env", environment: Self.childEnvironment)
        #expect(nodeRun.stdout.split(separator: "\n").map(String.init) == expected, "Node: \(nodeRun.stderr)")

        // Swift: the function below is the page's, character for character.
        let swift = try #require(Self.blocks("swift", in: text).first { $0.contains("func verifyWebhook(") })
        let function = swift.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("import ") || $0.isEmpty }
            .joined(separator: "\n")
        #expect(function.hasPrefix("func verifyWebhook("))
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        #expect(thisFile.contains(function), "docs/webhooks.md's Swift verifier differs from the copy tested here")
        let swiftResults = cases.map { c in
            verifyWebhook(
                secret: c.secret, id: c.headers["webhook-id"]!, timestamp: c.headers["webhook-timestamp"]!,
                signatures: c.headers["webhook-signature"]!, body: Data(hexPairs: c.body)) ? "1" : "0"
        }
        #expect(swiftResults == expected, "Swift")

        // Standard Webhooks' own Python library, where it is installed.
        let library = try #require(Self.blocks("python", in: text).first { $0.contains("standardwebhooks") })
        let probe = try await Self.python("import standardwebhooks", [])
        guard probe.exitCode == 0 else { return }
        try library.write(toFile: folder + "/library.py", atomically: true, encoding: .utf8)
        let libraryRun = try await Self.python(
            """
            import json, sys
            source = open(sys.argv[1]).read()
            for case in json.load(open(sys.argv[2])):
                scope = {"secret": case["secret"]}
                exec(source, scope)
                try:
                    scope["receive"](bytes.fromhex(case["body"]), case["headers"])
                    print("1")
                except scope["WebhookVerificationError"]:
                    print("0")
            """, [folder + "/library.py", folder + "/cases.json"])
        #expect(libraryRun.stdout.split(separator: "\n").map(String.init) == expected, "standardwebhooks: \(libraryRun.stderr)")
    }

    // MARK: - Helpers

    /// PATH comes from `SubreconBinary.run`; pyenv's shims also need HOME.
    static var childEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { ["HOME", "PYENV_ROOT", "PYENV_VERSION"].contains($0.key) }
    }

    static func python(_ program: String, _ arguments: [String]) async throws -> SubreconBinary.Result {
        try await SubreconBinary.run(
            ["python3", "-c", program] + arguments, executable: "/usr/bin/env", environment: childEnvironment)
    }
}

extension Data {
    fileprivate init(hexPairs hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}

// The Swift verifier of docs/webhooks.md, verbatim (the test above checks the page still says this).
private func verifyWebhook(secret: String, id: String, timestamp: String, signatures: String, body: Data,
                   tolerance: Int = 300) -> Bool {
    guard let sent = Int(timestamp), abs(Int(Date().timeIntervalSince1970) - sent) <= tolerance,
          secret.hasPrefix("whsec_"), let keyBytes = Data(base64Encoded: String(secret.dropFirst(6)))
    else { return false }
    let key = SymmetricKey(data: keyBytes)
    let signed = Data("\(id).\(timestamp).".utf8) + body
    return signatures.split(separator: " ").contains { entry in
        guard entry.hasPrefix("v1,"), let mac = Data(base64Encoded: String(entry.dropFirst(3))) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key)
    }
}
