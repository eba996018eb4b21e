import Foundation
import SubReconTestSupport
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Property and fuzz tests of the pure path Apple's bytes take: `VerifyReceiptResponse.decode` →
/// `SubscriptionStateDerivation.derive` → `ReceiptReconciler.reconcile`.
///
/// Inputs are the real bodies in Fixtures/apple-real and synthetic valid bodies, mutated by a
/// seeded SplitMix64: byte flips, truncation, invalid UTF-8, values of the wrong JSON type,
/// removed and duplicated keys, odd timestamps, out-of-range numbers, long strings, huge arrays and
/// deep nesting. Every failure names the seed and the case number; rerun one case with
/// `SUBRECON_FUZZ_SEED=<hex seed>` (the case number picks the same input again).
@Suite("Fuzz: decode, derive, reconcile")
struct FuzzTests {
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["SUBRECON_FUZZ_SEED"],
            let value = UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
        {
            return value
        }
        return 0x5EB5_C0DE_2026_1122
    }()
    static let seedText = "seed 0x" + String(seed, radix: 16)

    // 2026-11-22T06:46:04Z, the integration tests' clock.
    static let now: Int64 = 1_795_329_964_000
    static let day: Int64 = 86_400_000
    /// A stored expiry far beyond anything in the fixtures or the synthetic bodies (2100-01-01).
    static let farFuture: Int64 = 4_102_444_800_000
    static let receipt = ReceiptToVerify(id: 11, userID: "fuzz-user", receiptData: "RlVaWi1SRUNFSVBU", environment: .production)

    static let fixtureFolder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/apple-real")
    static let fixtures: [(name: String, bytes: [UInt8])] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtureFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            (name, Array((try? Data(contentsOf: fixtureFolder.appendingPathComponent(name))) ?? Data()))
        }
    }()

    // MARK: - the properties, checked for one body

    /// `#expect` for the hot path: thousands of inputs × dozens of properties, so a passing check
    /// costs a comparison, and only a failing one builds its message and records an issue.
    /// At most this many failing checks are reported one by one; a broken property fails on
    /// thousands of inputs, and the first few (each naming its seed and case) are what helps.
    static let issueBudget = IssueBudget(limit: 40)
    static func verify(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !condition else { return }
        switch issueBudget.take() {
        case .report: Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        case .lastOne: Issue.record(Comment(rawValue: message() + " (further fuzz failures are not listed)"), sourceLocation: sourceLocation)
        case .silent: break
        }
    }

    /// What one body did, for the non-vacuity checks.
    struct Observation {
        var response: VerifyReceiptResponse?
        /// How Foundation's decoder, the one replaced, read the same body.
        var equivalence = DecoderEquivalence.bothRejected
        var decoded: Bool { response != nil }
        var states = 0
        var wroteSubscriptions = false
    }

    /// Decodes `body`; when it decodes, derives and reconciles it against several snapshots and
    /// checks every property; a failed property is recorded as an issue naming `label`.
    @discardableResult
    static func check(_ body: [UInt8], label: String, nowMs: Int64 = now) -> Observation {
        var observation = Observation()
        let scanned = Result { () throws(AppStoreAnswerError) in try VerifyReceiptResponse.decode(body) }
        // Old and new decoder agree, or the body is malformed JSON that only the old one let through.
        observation.equivalence = DecoderEquivalence.compare(body, scanned: scanned)
        if case .differs = observation.equivalence { verify(false, "\(label): \(observation.equivalence)") }
        let response: VerifyReceiptResponse
        switch scanned {
        case .success(let decoded): response = decoded
        case .failure(let error):
            // Typed throws: it can only be AppStoreAnswerError; its byte count is the body's.
            verify(error == .notJSON(byteCount: body.count), "\(label): \(error)")
            return observation
        }
        observation.response = response

        // derive: one state per subscription, expiries taken from the input, statuses consistent with now.
        let derived = SubscriptionStateDerivation.derive(
            transactions: response.transactions, pendingRenewals: response.pendingRenewals, nowMs: nowMs)
        observation.states = derived.states.count
        checkDerivation(derived, response: response, nowMs: nowMs, label: label)

        // reconcile against a stored, far-future active subscription of an otid the body names.
        let otids = response.transactions.filter { $0.expiresDateMs != nil }.compactMap(\.originalTransactionID)
        // (Which of them varies with the body, deterministically.)
        let otid = otids.isEmpty
            ? response.transactions.compactMap(\.originalTransactionID).first ?? "fuzz-absent-otid"
            : otids[body.count % otids.count]
        let reconciler = ReceiptReconciler()
        let answer = VerificationOutcome.answered(response, environment: .production)

        let farStored = stored(otid: otid, expires: farFuture, environment: .production)
        let update = reconciler.reconcile(answer, snapshot: snapshot([farStored]), nowMs: nowMs, runID: 1)
        checkNoShortening(update, stored: farStored, response: response, nowMs: nowMs, label: label + " [far-future stored]")
        observation.wroteSubscriptions = !update.subscriptions.isEmpty

        // …and against one stored just after the answer's newest expiry for that otid (the answer is older).
        let newest = response.transactions.filter { $0.originalTransactionID == otid }.compactMap(\.expiresDateMs).max()
        if let newest, newest < Int64.max - 1 {
            let justAfter = stored(otid: otid, expires: newest + 1, environment: .production)
            let later = reconciler.reconcile(answer, snapshot: snapshot([justAfter]), nowMs: nowMs, runID: 1)
            checkNoShortening(later, stored: justAfter, response: response, nowMs: nowMs, label: label + " [stored newest+1]")
        }

        // A Sandbox answer never changes a Production subscription.
        let sandbox = reconciler.reconcile(
            .answered(response, environment: .sandbox), snapshot: snapshot([farStored]), nowMs: nowMs, runID: 1)
        for row in sandbox.subscriptions where row.originalTransactionID == otid {
            verify(row.hasSameReportedState(as: farStored), "\(label): a Sandbox answer changed a Production subscription: \(row)")
        }

        // No usable answer writes nothing, whatever is stored (every derived subscription stored here).
        var all = derived.states.map { stored(otid: $0.originalTransactionID, expires: $0.expiresDateMs, environment: .production) }
        all.append(farStored)
        let full = snapshot(all)
        let failure = VerificationFailure(appleStatus: response.rawStatus, environment: .production, message: "fuzz: \(label)")
        let failed = reconciler.reconcile(.failed(failure), snapshot: full, nowMs: nowMs, runID: 1)
        verify(failed.subscriptions.isEmpty, "\(label): a failed outcome wrote subscriptions")
        verify(failed.newRenewals.isEmpty && failed.renewalCancellations.isEmpty, "\(label): a failed outcome wrote renewals")
        verify(failed.runItem.outcome == .failed, "\(label)")
        verify(failed.receipt?.verificationState == "failed", "\(label)")
        verify(failed.receipt?.newReceiptData == nil, "\(label): a failed outcome replaced the receipt")
        for rejected in [
            VerificationOutcome.invalid(appleStatus: 21003, environment: .production), .accountGone(environment: nil),
            .stopRun(.sharedSecretMismatch), .stopRun(.requestRejected),
        ] {
            let update = reconciler.reconcile(rejected, snapshot: full, nowMs: nowMs, runID: 1)
            verify(update.subscriptions.isEmpty && update.newRenewals.isEmpty, "\(label): \(rejected) wrote something")
        }
        return observation
    }

    static func checkDerivation(
        _ derived: SubscriptionStateDerivation.Result, response: VerifyReceiptResponse, nowMs: Int64, label: String
    ) {
        let subscribed = Set(response.transactions.filter { $0.expiresDateMs != nil }.compactMap(\.originalTransactionID))
        let named = derived.states.map(\.originalTransactionID) + derived.undetermined
        verify(Set(named).count == named.count, "\(label): an otid derived twice: \(named.prefix(20))")
        verify(Set(named) == subscribed, "\(label): derived otids differ from the input's subscriptions")
        let byOTID = Dictionary(grouping: response.transactions.filter { $0.originalTransactionID != nil }) { $0.originalTransactionID! }
        for state in derived.states {
            let source = (byOTID[state.originalTransactionID] ?? []).filter { $0.expiresDateMs == state.expiresDateMs }
            verify(!source.isEmpty, "\(label): \(state.originalTransactionID) expiry \(state.expiresDateMs) is in no input entry")
            switch state.status {
            case .active:
                verify(state.expiresDateMs > nowMs, "\(label): active but expired: \(state)")
                verify(state.cancellationDateMs == nil, "\(label)")
            case .gracePeriod, .billingRetry, .expired:
                verify(state.expiresDateMs <= nowMs, "\(label): lapsed but expiry in the future: \(state)")
                verify(state.cancellationDateMs == nil, "\(label)")
            case .refunded:
                verify(state.cancellationDateMs != nil, "\(label): refunded without a cancellation date: \(state)")
                verify(source.contains { $0.cancellationDateMs != nil && !$0.isUpgraded }, "\(label): refunded, but no refunded entry")
            }
        }
    }

    /// The rule that protects customers: a written row never ends a stored subscription earlier,
    /// unless the same answer shows that stored period cancelled.
    static func checkNoShortening(
        _ update: ReceiptUpdate, stored: StoredSubscription, response: VerifyReceiptResponse, nowMs: Int64, label: String
    ) {
        let cancelledStoredPeriod = response.transactions.contains {
            $0.originalTransactionID == stored.originalTransactionID && $0.cancellationDateMs != nil
                && ($0.expiresDateMs ?? .min) >= stored.expiresDateMs
        }
        for row in update.subscriptions {
            verify(row.userID == receipt.userID, "\(label): a row for another user")
            guard row.originalTransactionID == stored.originalTransactionID else { continue }
            verify(
                row.expiresDateMs >= stored.expiresDateMs || cancelledStoredPeriod,
                "\(label): stored expiry \(stored.expiresDateMs) shortened to \(row.expiresDateMs) (\(row.status)) without a cancellation")
        }
        verify(update.runItem.outcome == .updated || update.runItem.outcome == .unchanged, "\(label): \(update.runItem.outcome)")
        let keys = update.newRenewals.map(\.periodKey)
        verify(Set(keys).count == keys.count, "\(label): a renewal period recorded twice")
        if let change = update.receipt {
            verify(change.verificationState == "verified" || change.verificationState == "flagged", "\(label)")
            verify(change.nextDueAt > nowMs, "\(label): scheduled into the past: \(change.nextDueAt)")
        } else {
            verify(false, "\(label): an answer left the receipt row untouched")
        }
    }

    static func stored(otid: String, expires: Int64, environment: ReceiptEnvironment) -> StoredSubscription {
        StoredSubscription(
            userID: receipt.userID, originalTransactionID: otid, receiptID: receipt.id, productID: "com.example.stored",
            status: .active, expiresDateMs: expires, autoRenewStatus: true, autoRenewProductID: "com.example.stored",
            expirationIntent: nil, gracePeriodExpiresDateMs: nil, isInBillingRetry: nil, cancellationDateMs: nil,
            ownershipType: "PURCHASED", environment: environment, lastVerifiedAt: now - 40 * day,
            firstSeenAt: now - 60 * day, updatedAt: now - 40 * day, flag: nil)
    }

    static func snapshot(_ subscriptions: [StoredSubscription]) -> ReceiptSnapshot {
        var byOTID: [String: StoredSubscription] = [:]
        for subscription in subscriptions where byOTID[subscription.originalTransactionID] == nil {
            byOTID[subscription.originalTransactionID] = subscription
        }
        return ReceiptSnapshot(receipt: receipt, subscriptions: byOTID)
    }

    // MARK: - tests

    @Test("the real bodies decode and satisfy every property unmutated")
    func realBodiesSatisfyTheProperties() {
        #expect(Self.fixtures.count >= 8, "fixtures missing from \(Self.fixtureFolder.path)")
        var decoded = 0
        for fixture in Self.fixtures {
            let observation = Self.check(fixture.bytes, label: fixture.name)
            if observation.decoded { decoded += 1 }
        }
        #expect(decoded == Self.fixtures.count, "every real body decodes")
    }

    @Test("mutated real bodies: decode never crashes; what decodes derives and reconciles safely")
    func mutatedRealBodies() throws {
        let parsed = try Self.fixtures.map { fixture in
            (fixture.name, try #require(FuzzJSONParser.parse(fixture.bytes), "fixture \(fixture.name) must parse"))
        }
        var decoded = 0
        var rejected = 0
        var withStates = 0
        var equivalences: [DecoderEquivalence: Int] = [:]
        for index in 0..<2_000 {
            var rng = SplitMix64(seed: Self.seed, stream: 1, index: UInt64(index))
            let (name, base) = parsed[rng.int(parsed.count)]
            var mutator = FuzzMutator(rng: rng)
            let (body, steps) = mutator.mutate(base)
            let label = "\(Self.seedText) mutatedRealBodies case \(index) (\(name): \(steps.joined(separator: ", ")))"
            let observation = Self.check(body, label: label, nowMs: mutator.rng.pick([Self.now, 1_538_581_908_453, 1_350_157_208_197]))
            if observation.decoded { decoded += 1 } else { rejected += 1 }
            if observation.states > 0 { withStates += 1 }
            equivalences[observation.equivalence, default: 0] += 1
        }
        // Not vacuous: plenty of both kinds reach the properties.
        #expect(decoded > 500, "\(Self.seedText): only \(decoded) mutated bodies decoded")
        #expect(rejected > 250, "\(Self.seedText): only \(rejected) mutated bodies were rejected")
        // …and the comparison with Foundation's decoder saw plenty of both too.
        #expect(equivalences[.same, default: 0] > 500, "\(Self.seedText): \(equivalences)")
        #expect(equivalences[.bothRejected, default: 0] > 100, "\(Self.seedText): \(equivalences)")
        #expect(withStates > 250, "\(Self.seedText): only \(withStates) bodies derived a subscription")
    }

    @Test("synthetic valid bodies, plain and mutated")
    func syntheticBodies() {
        var decoded = 0
        var wrote = 0
        for index in 0..<1_200 {
            var rng = SplitMix64(seed: Self.seed, stream: 2, index: UInt64(index))
            let nowMs = Self.now + Int64(rng.int(60)) * Self.day - 30 * Self.day
            let synthetic = FuzzSynthetic.body(&rng, nowMs: nowMs)
            let plainLabel = "\(Self.seedText) syntheticBodies case \(index) (plain: \(synthetic.shape))"
            // Unmutated, a synthetic body is valid: it must decode with every transaction it holds.
            let plainBytes = synthetic.json.bytes()
            let plain = Self.check(plainBytes, label: plainLabel, nowMs: nowMs)
            #expect(plain.decoded, "\(plainLabel): a valid body was rejected")
            if let response = plain.response {
                #expect(response.transactions.count == synthetic.transactionCount, "\(plainLabel)")
                #expect(response.malformedEntryCount == 0, "\(plainLabel)")
            }
            if plain.wroteSubscriptions { wrote += 1 }

            var mutator = FuzzMutator(rng: rng)
            let (body, steps) = mutator.mutate(synthetic.json, plainBytes: plainBytes)
            let label = "\(Self.seedText) syntheticBodies case \(index) (\(synthetic.shape): \(steps.joined(separator: ", ")))"
            if Self.check(body, label: label, nowMs: nowMs).decoded { decoded += 1 }
        }
        #expect(decoded > 300, "\(Self.seedText): only \(decoded) mutated synthetic bodies decoded")
        #expect(wrote > 600, "\(Self.seedText): only \(wrote) synthetic bodies wrote a subscription")
    }

    @Test("a stored subscription is never shortened by an older answer unless that answer shows it cancelled")
    func targetedShortening() {
        // Bodies built to put the stored otid's newest expiry below the stored one, with and
        // without a cancelled entry at or beyond the stored expiry: the property must hold both ways,
        // and both ways must actually occur.
        var kept = 0
        var shortenedByCancellation = 0
        for index in 0..<600 {
            var rng = SplitMix64(seed: Self.seed, stream: 3, index: UInt64(index))
            let otid = "7000000\(100 + rng.int(3))"
            let storedExpiry = Self.now + Int64(rng.int(40)) * Self.day
            var entries: [FuzzJSON] = []
            for n in 0..<(1 + rng.int(4)) {
                let expires = storedExpiry - Int64(1 + rng.int(60)) * Self.day
                entries.append(FuzzSynthetic.transaction(otid: otid, n: n, expires: expires, rng: &rng))
            }
            if rng.chance(0.5) {
                // The stored period itself, cancelled (refund or upgrade), possibly reported later.
                let cancelled = FuzzSynthetic.transaction(
                    otid: otid, n: 9, expires: storedExpiry + Int64(rng.int(2)) * Self.day, rng: &rng,
                    cancelled: Self.now - Self.day, upgraded: rng.chance(0.5))
                entries.insert(cancelled, at: rng.int(entries.count + 1))
            }
            let body = FuzzJSON.object([
                ("status", .number("0")), ("environment", .string("Production")),
                ("latest_receipt_info", .array(entries)), ("latest_receipt", .string("TkVX")),
            ])
            let label = "\(Self.seedText) targetedShortening case \(index)"
            guard let response = try? VerifyReceiptResponse.decode(body.bytes()) else {
                Issue.record("\(label): a valid body was rejected")
                continue
            }
            #expect(DecoderEquivalence.compare(body.bytes()) == .same, "\(label)")
            let storedRow = Self.stored(otid: otid, expires: storedExpiry, environment: .production)
            let update = ReceiptReconciler().reconcile(
                .answered(response, environment: .production), snapshot: Self.snapshot([storedRow]), nowMs: Self.now, runID: 1)
            Self.checkNoShortening(update, stored: storedRow, response: response, nowMs: Self.now, label: label)
            let row = update.subscriptions.first { $0.originalTransactionID == otid }
            if let row, row.expiresDateMs < storedExpiry { shortenedByCancellation += 1 }
            if let row, row.expiresDateMs == storedExpiry, row.flag != nil { kept += 1 }
        }
        #expect(kept > 100, "\(Self.seedText): the keep-and-flag path ran only \(kept) times")
        #expect(shortenedByCancellation > 50, "\(Self.seedText): the cancelled-period path ran only \(shortenedByCancellation) times")
    }

    @Test("status that is not a whole number in range is not an answer")
    func statusOutOfRange() {
        for status in [
            "1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "99999999999999999999999", "0.5",
            #""9223372036854775808""#, #""0.5""#, #""""#, "null", "true", "[]", "{}", #""0x0""#, #"" 0""#,
        ] {
            let body = Array(#"{"status":\#(status),"latest_receipt_info":[]}"#.utf8)
            #expect(throws: AppStoreAnswerError.self, "status \(status)") { try VerifyReceiptResponse.decode(body) }
        }
        // Whole numbers are answers, however they are spelled.
        for (status, expected) in [("0", 0), (#""0""#, 0), ("0.0", 0), ("21006", 21006), (#""21006""#, 21006)] {
            let body = Array(#"{"status":\#(status)}"#.utf8)
            #expect((try? VerifyReceiptResponse.decode(body))?.rawStatus == expected, "status \(status)")
        }
    }

    @Test("odd timestamps: out of range, negative, zero, fractional, badly formatted")
    func oddTimestamps() {
        let values: [FuzzJSON] = [
            .number("0"), .number("-1"), .number("-1536569407000"), .number("99999999999999999999"), .number("1e400"),
            .number("-1e400"), .number("1.5"), .number("1.8e12"), .number("9223372036854775807"),
            .number("9223372036854775808"), .number("9007199254740993"), .string("0"), .string("-1"),
            .string("99999999999999999999"), .string("9999999999999999"), .string("1.5"), .string(" 1536569407000"),
            .string("1536569407000 "), .string("+1536569407000"), .string("0x10"), .string("１２３"),
            .string("2018-09-10 08:50:07 Etc/GMT"), .string("9999-12-31 23:59:59 Etc/GMT"),
            .string("0000-01-01 00:00:00 Etc/GMT"), .string("2018-02-30 25:61:61 Etc/GMT"),
            .string("2018-09-10 08:50:07 Mars/Olympus"), .string("2018-09-10"), .bool(true), .null, .array([]),
            .object([]), .string(""),
        ]
        var index = 0
        for key in ["expires_date_ms", "expires_date", "purchase_date_ms", "cancellation_date_ms", "cancellation_date"] {
            for value in values {
                index += 1
                let body = FuzzJSON.object([
                    ("status", .number("0")), ("environment", .string("Production")),
                    (
                        "latest_receipt_info",
                        .array([
                            FuzzJSON.object([
                                ("transaction_id", .string("500")), ("original_transaction_id", .string("500")),
                                ("product_id", .string("p")), ("purchase_date_ms", .string("1536000000000")),
                                ("expires_date_ms", .string("1536569407000")),
                            ]).replacing(key: key, with: value)
                        ])
                    ),
                    ("pending_renewal_info", .array([.object([("original_transaction_id", .string("500")), ("is_in_billing_retry_period", .string("1")), ("grace_period_expires_date_ms", value)])])),
                ])
                let label = "oddTimestamps \(key)=\(value.bytes().prefix(40).map { Character(UnicodeScalar($0)) })"
                let observation = Self.check(body.bytes(), label: label)
                #expect(observation.decoded, "\(label): one odd field must not reject the whole answer")
                // A negative or out-of-range millisecond value is no value, never a wrapped or truncated one.
                if let response = try? VerifyReceiptResponse.decode(body.bytes()), let entry = response.transactions.first {
                    let field: Int64?? = switch key {
                    case "expires_date_ms": entry.expiresDateMs
                    case "purchase_date_ms": entry.purchaseDateMs
                    case "cancellation_date_ms": entry.cancellationDateMs
                    default: .none
                    }
                    let text = String(decoding: value.bytes(), as: UTF8.self)
                    if case .some(let parsed) = field, text.contains("-") || text.contains("99999999999999999999") || text.contains("e400") {
                        #expect(parsed == nil, "\(label): parsed as \(String(describing: parsed))")
                    }
                }
            }
        }
        #expect(index > 100)
    }

    @Test("huge arrays: 20,000 transactions decode, derive and reconcile")
    func hugeArrays() throws {
        var rng = SplitMix64(seed: Self.seed, stream: 4, index: 0)
        // A long renewal history of 50 subscriptions, plus two junk entries (not objects).
        var entries: [FuzzJSON] = []
        for n in 0..<20_000 {
            let otid = "9000000\(n % 50)"
            entries.append(FuzzSynthetic.transaction(otid: otid, n: n, expires: Self.now - Int64(20_000 - n) * 3_600_000, rng: &rng))
        }
        entries.insert(.number("1"), at: 10_000)
        entries.insert(.null, at: 5_000)
        let body = FuzzJSON.object([
            ("status", .number("0")), ("environment", .string("Production")), ("latest_receipt_info", .array(entries)),
            ("pending_renewal_info", .array((0..<50).map { .object([("original_transaction_id", .string("9000000\($0)")), ("auto_renew_status", .string("1"))]) })),
        ]).bytes()
        let observation = Self.check(body, label: "\(Self.seedText) hugeArrays")
        let response = try #require(observation.response)
        #expect(response.transactions.count == 20_000)
        #expect(response.malformedEntryCount == 2)
        #expect(observation.states == 50)

        // One period repeated 20,000 times (one period key): one renewal record, one subscription.
        let same = FuzzSynthetic.transaction(otid: "123", n: 1, expires: Self.now + Self.day, rng: &rng)
        let repeated = try VerifyReceiptResponse.decode(
            FuzzJSON.object([("status", .number("0")), ("latest_receipt_info", .array(Array(repeating: same, count: 20_000)))]).bytes())
        #expect(repeated.transactions.count == 20_000)
        let update = ReceiptReconciler().reconcile(
            .answered(repeated, environment: .production), snapshot: ReceiptSnapshot(receipt: Self.receipt), nowMs: Self.now, runID: 1)
        #expect(update.newRenewals.count == 1, "one period repeated 20,000 times is one renewal record")
        #expect(update.subscriptions.count == 1)
    }

    @Test("many distinct subscriptions in one answer (1,000 otids)")
    func manyDistinctSubscriptions() throws {
        var rng = SplitMix64(seed: Self.seed, stream: 5, index: 0)
        let entries = (0..<1_000).map { n in
            FuzzSynthetic.transaction(otid: "8\(100_000 + n)", n: n, expires: Self.now + Int64(n - 500) * 60_000, rng: &rng)
        }
        let body = FuzzJSON.object([("status", .number("0")), ("environment", .string("Production")), ("latest_receipt_info", .array(entries))]).bytes()
        let observation = Self.check(body, label: "\(Self.seedText) manyDistinctSubscriptions")
        #expect(observation.states == 1_000)
    }

    @Test("deep nesting is rejected or tolerated, never a crash")
    func deepNesting() {
        let depth = 10_000
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let objects = String(repeating: #"{"a":"#, count: depth) + "0" + String(repeating: "}", count: depth)
        let bodies: [(String, String, mustThrow: Bool)] = [
            ("whole body arrays", arrays, true),
            ("whole body objects", objects, true),
            ("unterminated arrays", String(repeating: "[", count: 100_000), true),
            ("unterminated objects", String(repeating: #"{"a":"#, count: 50_000), true),
            ("latest_receipt_info arrays", #"{"status":0,"latest_receipt_info":\#(arrays)}"#, false),
            ("latest_receipt_info objects", #"{"status":0,"latest_receipt_info":[\#(objects)]}"#, false),
            ("pending_renewal_info arrays", #"{"status":0,"pending_renewal_info":\#(arrays)}"#, false),
            ("receipt objects", #"{"status":0,"receipt":\#(objects)}"#, false),
            ("unknown key arrays", #"{"status":0,"in_app":\#(arrays)}"#, false),
            ("status arrays", #"{"status":\#(arrays)}"#, true),
            ("transaction field objects", #"{"status":0,"latest_receipt_info":[{"original_transaction_id":"1","expires_date_ms":\#(objects)}]}"#, false),
        ]
        for (name, text, mustThrow) in bodies {
            let body = Array(text.utf8)
            let observation = Self.check(body, label: "deepNesting \(name)")
            if mustThrow { #expect(!observation.decoded, "deepNesting \(name): not an object with a status, yet decoded") }
            if observation.decoded, let response = try? VerifyReceiptResponse.decode(body) {
                // Tolerated: nothing nonsensical may come out of it.
                #expect(response.transactions.allSatisfy { $0.expiresDateMs == nil }, "deepNesting \(name)")
            }
        }
        // Within the decoder's depth limit, nested arrays are non-object entries: counted as malformed.
        let shallow = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let response = try? VerifyReceiptResponse.decode(Array(#"{"status":0,"latest_receipt_info":[\#(shallow),{"original_transaction_id":"1","expires_date_ms":"1"}]}"#.utf8))
        #expect(response?.malformedEntryCount == 1)
        #expect(response?.transactions.count == 1)
    }

    @Test("very long strings and keys")
    func longStrings() {
        let long = String(repeating: "A", count: 1 << 20)
        let digits = String(repeating: "7", count: 100_000)
        let bodies: [(String, FuzzJSON)] = [
            ("latest_receipt", .object([("status", .number("0")), ("latest_receipt", .string(long))])),
            ("otid", .object([("status", .number("0")), ("latest_receipt_info", .array([.object([("original_transaction_id", .string(long)), ("expires_date_ms", .string("1795329964000"))])]))])),
            ("expiry digits", .object([("status", .number("0")), ("latest_receipt_info", .array([.object([("original_transaction_id", .string("1")), ("expires_date_ms", .string(digits))])]))])),
            ("expiry number", .object([("status", .number("0")), ("latest_receipt_info", .array([.object([("original_transaction_id", .string("1")), ("expires_date_ms", .number(digits))])]))])),
            ("status digits", .object([("status", .number(digits))])),
            ("long key", .object([(long, .string("x")), ("status", .number("0"))])),
            ("environment", .object([("status", .number("0")), ("environment", .string(long))])),
        ]
        for (name, json) in bodies {
            let observation = Self.check(json.bytes(), label: "longStrings \(name)")
            if name == "status digits" { #expect(!observation.decoded, "a 100,000-digit status is not a status") }
            if name == "latest_receipt" || name == "otid" || name == "long key" { #expect(observation.decoded, "longStrings \(name)") }
            if name.hasPrefix("expiry"), let response = try? VerifyReceiptResponse.decode(json.bytes()) {
                #expect(response.transactions.first?.expiresDateMs == nil, "a 100,000-digit expiry is no expiry")
            }
        }
    }

    @Test("duplicate keys never crash, and a duplicated status still needs to be numeric")
    func duplicateKeys() {
        var rng = SplitMix64(seed: Self.seed, stream: 6, index: 0)
        for index in 0..<200 {
            let entry = FuzzSynthetic.transaction(otid: "42", n: index, expires: Self.now + Self.day, rng: &rng)
            guard case .object(let pairs) = entry else { continue }
            let duplicated = pairs + pairs.map { ($0.0, rng.chance(0.5) ? FuzzJSON.string("\(rng.int(10))") : .null) }
            let body = FuzzJSON.object([
                ("status", .number("0")), ("status", rng.pick([.number("21003"), .string("x"), .null, .number("0")])),
                ("environment", .string("Production")), ("environment", .string(rng.pick(["Sandbox", "Nowhere", "Production"]))),
                ("latest_receipt_info", .array([.object(duplicated)])), ("latest_receipt_info", rng.chance(0.5) ? .null : .array([entry])),
            ])
            Self.check(body.bytes(), label: "\(Self.seedText) duplicateKeys case \(index)")
        }
    }
}

/// Counts reported fuzz failures across the suite's concurrently running tests.
final class IssueBudget: @unchecked Sendable {
    enum Decision { case report, lastOne, silent }
    private let lock = NSLock()
    private var used = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func take() -> Decision {
        lock.withLock {
            used += 1
            return used < limit ? .report : used == limit ? .lastOne : .silent
        }
    }
}

// MARK: - seeded randomness

/// The fuzz tests' generator: an independent stream per (test, case), so one case can be replayed alone.
extension SplitMix64 {
    init(seed: UInt64, stream: UInt64, index: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        for _ in 0..<2 { _ = mixer.next() }
        self.init(seed: mixer.next() ^ (index &* 0xD1B5_4A32_D192_ED03))
    }

    /// 0..<bound (bound > 0).
    mutating func int(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[int(values.count)] }
}

// MARK: - a JSON model that can say what JSONSerialization can't (duplicate keys, raw number text, raw bytes)

indirect enum FuzzJSON: Sendable {
    case object([(String, FuzzJSON)])
    case array([FuzzJSON])
    case string(String)
    /// The number's text exactly as written (so 1e400 and 20-digit integers survive).
    case number(String)
    case bool(Bool)
    case null
    /// Bytes written as they are (invalid UTF-8, broken syntax).
    case raw([UInt8])

    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(pair.0, to: &out)
                out.append(UInt8(ascii: ":"))
                pair.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): Self.writeString(text, to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .raw(let bytes): out.append(contentsOf: bytes)
        }
    }

    static let needsEscaping = CharacterSet(charactersIn: "\"\\").union(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x1F)))

    static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if text.rangeOfCharacter(from: needsEscaping) == nil {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [92, byte])
            case 0..<0x20: out.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Replaces (or adds) `key` in an object.
    func replacing(key: String, with value: FuzzJSON) -> FuzzJSON {
        guard case .object(var pairs) = self else { return self }
        if let index = pairs.firstIndex(where: { $0.0 == key }) { pairs[index].1 = value } else { pairs.append((key, value)) }
        return .object(pairs)
    }

    var children: [FuzzJSON] {
        switch self {
        case .object(let pairs): pairs.map(\.1)
        case .array(let values): values
        default: []
        }
    }

    func updating(at path: [Int], _ change: (FuzzJSON) -> FuzzJSON) -> FuzzJSON {
        guard let first = path.first else { return change(self) }
        switch self {
        case .object(var pairs):
            pairs[first].1 = pairs[first].1.updating(at: Array(path.dropFirst()), change)
            return .object(pairs)
        case .array(var values):
            values[first] = values[first].updating(at: Array(path.dropFirst()), change)
            return .array(values)
        default: return self
        }
    }
}

/// Parses the (trusted, shallow) fixture bodies into `FuzzJSON`, keeping key order and number text.
struct FuzzJSONParser {
    var bytes: [UInt8]
    var index = 0

    static func parse(_ bytes: [UInt8]) -> FuzzJSON? {
        var parser = FuzzJSONParser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.index == bytes.count ? value : nil
    }

    mutating func skipSpace() {
        while index < bytes.count, [9, 10, 13, 32].contains(bytes[index]) { index += 1 }
    }

    mutating func value() -> FuzzJSON? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var pairs: [(String, FuzzJSON)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value() else { return nil }
                pairs.append((key, value))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
                return nil
            }
        case UInt8(ascii: "["):
            index += 1
            var values: [FuzzJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            while true {
                guard let value = value() else { return nil }
                values.append(value)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
                return nil
            }
        case UInt8(ascii: "\""):
            return string().map(FuzzJSON.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default:
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            return index > start ? .number(String(decoding: bytes[start..<index], as: UTF8.self)) : nil
        }
    }

    mutating func literal(_ word: String, _ value: FuzzJSON) -> FuzzJSON? {
        let word = Array(word.utf8)
        guard index + word.count <= bytes.count, Array(bytes[index..<index + word.count]) == word else { return nil }
        index += word.count
        return value
    }

    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                flush()
                return String(scalars)
            }
            guard byte == UInt8(ascii: "\\") else { run.append(byte); continue }
            guard index < bytes.count else { return nil }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "n"): run.append(10)
            case UInt8(ascii: "t"): run.append(9)
            case UInt8(ascii: "r"): run.append(13)
            case UInt8(ascii: "b"): run.append(8)
            case UInt8(ascii: "f"): run.append(12)
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                else { return nil }
                index += 4
                flush()
                // Surrogates (not in the fixtures) become U+FFFD rather than being paired.
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: run.append(escape)
            }
        }
        return nil
    }
}

// MARK: - mutations

struct FuzzMutator {
    var rng: SplitMix64

    static let interestingNumbers = [
        "0", "-0", "-1", "1", "21003", "21004", "21006", "21007", "21010", "21104", "1e400", "-1e400", "1.5", "1e3",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "99999999999999999999", "9007199254740993", "1536569407000", "-1536569407000", "4102444800000",
    ]
    static let interestingStrings = [
        "", " ", "0", "-1", "true", "1", "false", "Production", "Sandbox", "production", "Prod\u{0}uction", "\u{FFFD}",
        "9999999999999999", "99999999999999999999", "2018-09-10 08:50:07 Etc/GMT", "0000-00-00 00:00:00 Etc/GMT",
        "PURCHASED", "FAMILY_SHARED", "\"quoted\"", "\\", "é", "🧾",
    ]
    static let timestampKeys: Set<String> = [
        "expires_date_ms", "expires_date", "purchase_date_ms", "purchase_date", "cancellation_date_ms", "cancellation_date",
        "grace_period_expires_date_ms", "request_date_ms", "original_purchase_date_ms",
    ]
    static let transactionKeys = [
        "transaction_id", "original_transaction_id", "web_order_line_item_id", "product_id", "expires_date_ms",
        "cancellation_date_ms", "is_upgraded", "is_trial_period", "status", "environment", "latest_receipt_info",
        "pending_renewal_info", "is_in_billing_retry_period", "grace_period_expires_date_ms", "auto_renew_status",
    ]

    /// 0–4 structural mutations, then 0–3 byte-level ones; returns the body and what was done.
    mutating func mutate(_ base: FuzzJSON, plainBytes: [UInt8]? = nil) -> ([UInt8], [String]) {
        var json = base
        var steps: [String] = []
        let structural = rng.chance(0.85) ? 1 + rng.int(4) : 0
        for _ in 0..<structural { json = structuralMutation(json, &steps) }
        var bytes = structural == 0 ? (plainBytes ?? json.bytes()) : json.bytes()
        let byteLevel = rng.chance(0.45) ? 1 + rng.int(3) : 0
        for _ in 0..<byteLevel { bytes = byteMutation(bytes, &steps) }
        if steps.isEmpty { steps.append("none") }
        return (bytes, steps)
    }

    /// A random node accepted by `accept`, found by random descent from the root (cheap even on
    /// the biggest fixture); nil when none turned up.
    mutating func randomPath(_ json: FuzzJSON, where accept: (FuzzJSON) -> Bool = { _ in true }) -> [Int]? {
        for _ in 0..<64 {
            var path: [Int] = []
            var node = json
            while true {
                if accept(node), rng.chance(0.4) { return path }
                let children = node.children
                if children.isEmpty || path.count >= 10 { break }
                let index = rng.int(children.count)
                path.append(index)
                node = children[index]
            }
        }
        return nil
    }

    mutating func scalar() -> FuzzJSON {
        switch rng.int(6) {
        case 0: .number(rng.pick(Self.interestingNumbers))
        case 1: .string(rng.pick(Self.interestingStrings))
        case 2: .string(rng.pick(Self.interestingNumbers))
        case 3: .bool(rng.chance(0.5))
        case 4: .null
        default: .string(String(repeating: rng.pick(["9", "x", "é"]), count: 1 + rng.int(5_000)))
        }
    }

    /// A value of a different JSON type than `node`.
    mutating func otherType(than node: FuzzJSON) -> FuzzJSON {
        switch node {
        case .array(let values) where rng.chance(0.5):
            // arrays → objects
            return .object(values.prefix(50).enumerated().map { ("\($0.offset)", $0.element) })
        case .object(let pairs) where rng.chance(0.5):
            return rng.chance(0.5) ? .array(pairs.map(\.1)) : .array([node])
        default:
            while true {
                let candidate: FuzzJSON
                switch rng.int(7) {
                case 0: candidate = .number(rng.pick(Self.interestingNumbers))
                case 1: candidate = .object(rng.chance(0.5) ? [] : [("x", .number("1"))])
                case 2: candidate = .array(rng.chance(0.5) ? [] : [.string("a"), .number("1")])
                case 3: candidate = .null
                case 4: candidate = .bool(rng.chance(0.5))
                case 5: candidate = .string(rng.pick(Self.interestingStrings))
                default: candidate = scalar()
                }
                if Self.kind(candidate) != Self.kind(node) { return candidate }
            }
        }
    }

    static func kind(_ json: FuzzJSON) -> Int {
        switch json {
        case .object: 0
        case .array: 1
        case .string: 2
        case .number: 3
        case .bool: 4
        case .null: 5
        case .raw: 6
        }
    }

    mutating func structuralMutation(_ json: FuzzJSON, _ steps: inout [String]) -> FuzzJSON {
        switch rng.int(10) {
        case 0, 1:
            guard let path = randomPath(json) else { return json }
            steps.append("retype \(path)")
            return json.updating(at: path) { otherType(than: $0) }
        case 2:
            guard let path = randomPath(json, where: { if case .object(let p) = $0 { !p.isEmpty } else { false } }) else { return json }
            steps.append("remove key at \(path)")
            return json.updating(at: path) { node in
                guard case .object(var pairs) = node else { return node }
                pairs.remove(at: rng.int(pairs.count))
                return .object(pairs)
            }
        case 3:
            guard let path = randomPath(json, where: { if case .object(let p) = $0 { !p.isEmpty } else { false } }) else { return json }
            steps.append("duplicate key at \(path)")
            return json.updating(at: path) { node in
                guard case .object(var pairs) = node else { return node }
                let pair = pairs[rng.int(pairs.count)]
                let value = rng.chance(0.5) ? scalar() : pair.1
                pairs.insert((pair.0, value), at: rng.int(pairs.count + 1))
                return .object(pairs)
            }
        case 4:
            // A timestamp-like or well-known key gets an odd value.
            guard let path = randomPath(json, where: { node in
                if case .object(let pairs) = node { pairs.contains { Self.timestampKeys.contains($0.0) || Self.transactionKeys.contains($0.0) } } else { false }
            }) else { return json }
            steps.append("odd value at \(path)")
            return json.updating(at: path) { node in
                guard case .object(var pairs) = node else { return node }
                let indexes = pairs.indices.filter { Self.timestampKeys.contains(pairs[$0].0) || Self.transactionKeys.contains(pairs[$0].0) }
                let index = rng.pick(indexes)
                pairs[index].1 = rng.chance(0.7) ? (rng.chance(0.5) ? .number(rng.pick(Self.interestingNumbers)) : .string(rng.pick(Self.interestingNumbers))) : scalar()
                return .object(pairs)
            }
        case 5:
            // Non-object entries inside an array.
            guard let path = randomPath(json, where: { if case .array = $0 { true } else { false } }) else { return json }
            steps.append("junk entry in \(path)")
            return json.updating(at: path) { node in
                guard case .array(var values) = node else { return node }
                values.insert(rng.pick([FuzzJSON.number("1"), .string("x"), .null, .array([]), .bool(false)]), at: rng.int(values.count + 1))
                return .array(values)
            }
        case 6:
            // Cancel (refund or upgrade) or un-cancel a random transaction-like object.
            guard let path = randomPath(json, where: { if case .object(let p) = $0 { p.contains { $0.0 == "original_transaction_id" } } else { false } })
            else { return json }
            steps.append("cancel at \(path)")
            return json.updating(at: path) { node in
                var out = node.replacing(key: "cancellation_date_ms", with: .string(String(FuzzTests.now - Int64(rng.int(100)) * FuzzTests.day)))
                if rng.chance(0.4) { out = out.replacing(key: "is_upgraded", with: rng.pick([.string("true"), .string("1"), .bool(true), .string("false")])) }
                return out
            }
        case 7:
            // Share or move an original_transaction_id.
            guard let path = randomPath(json, where: { if case .object(let p) = $0 { p.contains { $0.0 == "original_transaction_id" } } else { false } })
            else { return json }
            steps.append("otid at \(path)")
            return json.updating(at: path) { node in
                node.replacing(key: "original_transaction_id", with: rng.pick([.string("1000000000000001"), .number("1000000000000001"), .string("x"), .string(""), .null]))
            }
        case 8:
            // Invalid UTF-8 (or a lone surrogate escape) inside a string value.
            guard let path = randomPath(json, where: { if case .string = $0 { true } else { false } }) else { return json }
            steps.append("bad utf8 string at \(path)")
            let bad = rng.pick([[0xC3, 0x28], [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], Array(#"\uD800"#.utf8), [0x00]])
            return json.updating(at: path) { node in
                guard case .string(let text) = node else { return node }
                var out: [UInt8] = []
                FuzzJSON.writeString(text, to: &out)
                out.insert(contentsOf: bad, at: 1 + rng.int(max(out.count - 1, 1)))
                return .raw(out)
            }
        default:
            // The iOS 6 shapes: a single object for the array, or the 21006 key.
            guard case .object(var pairs) = json, let index = pairs.firstIndex(where: { $0.0 == "latest_receipt_info" }) else { return json }
            if rng.chance(0.5), case .array(let values) = pairs[index].1, let first = values.first {
                steps.append("latest_receipt_info as one object")
                pairs[index].1 = first
            } else {
                steps.append("latest_expired_receipt_info")
                pairs[index].0 = "latest_expired_receipt_info"
            }
            return .object(pairs)
        }
    }

    mutating func byteMutation(_ bytes: [UInt8], _ steps: inout [String]) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        var out = bytes
        switch rng.int(6) {
        case 0:
            let flips = 1 + rng.int(8)
            steps.append("flip \(flips) bytes")
            for _ in 0..<flips { out[rng.int(out.count)] ^= UInt8(1 + rng.int(255)) }
        case 1:
            let at = rng.int(out.count)
            steps.append("truncate at \(at)")
            out.removeSubrange(at...)
        case 2:
            let bad = rng.pick([[0xC3, 0x28], [0xFF], [0xFE, 0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80, 0x80]] as [[UInt8]])
            let at = rng.int(out.count + 1)
            steps.append("insert \(bad) at \(at)")
            out.insert(contentsOf: bad, at: at)
        case 3:
            let start = rng.int(out.count)
            let end = min(out.count, start + 1 + rng.int(64))
            steps.append("delete \(start)..<\(end)")
            out.removeSubrange(start..<end)
        case 4:
            let start = rng.int(out.count)
            let end = min(out.count, start + 1 + rng.int(64))
            let at = rng.int(out.count + 1)
            steps.append("copy \(start)..<\(end) to \(at)")
            out.insert(contentsOf: Array(bytes[start..<end]), at: at)
        default:
            // A structural byte swapped for another.
            let structural: Set<UInt8> = [0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x22]  // { } [ ] : , "
            var found: Int?
            for _ in 0..<200 where found == nil {
                let candidate = rng.int(out.count)
                if structural.contains(out[candidate]) { found = candidate }
            }
            guard let at = found else { return out }
            let replacement = rng.pick(Array("{}[]:,\"0 ".utf8))
            steps.append("structural byte at \(at)")
            out[at] = replacement
        }
        return out
    }
}

// MARK: - synthetic valid bodies

enum FuzzSynthetic {
    static let products = ["com.example.pro.monthly", "com.example.pro.yearly", "com.example.premium.monthly", "com.example.coins"]

    /// A value the way some producer might send it: a string, or a bare number.
    static func number(_ value: Int64, _ rng: inout SplitMix64) -> FuzzJSON {
        rng.chance(0.8) ? .string(String(value)) : .number(String(value))
    }

    static func flag(_ value: Bool, _ rng: inout SplitMix64) -> FuzzJSON {
        rng.pick([.string(value ? "true" : "false"), .bool(value), .string(value ? "1" : "0"), .number(value ? "1" : "0")])
    }

    static func transaction(
        otid: String, n: Int, expires: Int64, rng: inout SplitMix64, cancelled: Int64? = nil, upgraded: Bool = false
    ) -> FuzzJSON {
        var pairs: [(String, FuzzJSON)] = [
            ("quantity", .string("1")), ("product_id", .string(rng.pick(Array(products.prefix(3))))),
            ("transaction_id", .string("\(otid)\(n)")), ("original_transaction_id", rng.chance(0.9) ? .string(otid) : .number(otid)),
            ("purchase_date_ms", number(expires - 30 * FuzzTests.day, &rng)),
            ("expires_date_ms", number(expires, &rng)),
            ("web_order_line_item_id", .string("\(otid)9\(n)")),
            ("is_trial_period", flag(rng.chance(0.1), &rng)), ("is_in_intro_offer_period", flag(false, &rng)),
            ("in_app_ownership_type", .string(rng.chance(0.9) ? "PURCHASED" : "FAMILY_SHARED")),
            ("subscription_group_identifier", .string("20500000")),
        ]
        if rng.chance(0.3) { pairs.append(("expires_date", .string("2026-11-22 06:46:04 Etc/GMT"))) }
        if let cancelled {
            pairs.append(("cancellation_date_ms", number(cancelled, &rng)))
            pairs.append(("cancellation_reason", .string("0")))
            if upgraded { pairs.append(("is_upgraded", flag(true, &rng))) }
        }
        // Array order is no contract.
        for index in stride(from: pairs.count - 1, to: 0, by: -1) where rng.chance(0.3) { pairs.swapAt(index, rng.int(index + 1)) }
        return .object(pairs)
    }

    struct Body {
        var json: FuzzJSON
        var transactionCount: Int
        var shape: String
    }

    static func body(_ rng: inout SplitMix64, nowMs: Int64) -> Body {
        let otids = (0..<(1 + rng.int(3))).map { "1000000\(700 + $0 + rng.int(5) * 10)" }
        var entries: [FuzzJSON] = []
        for n in 0..<rng.int(9) {
            let otid = rng.pick(otids)
            let expires = nowMs + Int64(rng.int(120) - 60) * FuzzTests.day + Int64(rng.int(1_000))
            let cancelled: Int64? = rng.chance(0.15) ? nowMs - Int64(rng.int(30)) * FuzzTests.day : nil
            entries.append(transaction(otid: otid, n: n, expires: expires, rng: &rng, cancelled: cancelled, upgraded: cancelled != nil && rng.chance(0.5)))
        }
        if rng.chance(0.1) {
            // A consumable: no expiry, never a subscription.
            entries.append(.object([("product_id", .string("com.example.coins")), ("transaction_id", .string("55")), ("original_transaction_id", .string("55")), ("purchase_date_ms", .string("1536000000000"))]))
        }
        var renewals: [FuzzJSON] = []
        for otid in otids where rng.chance(0.8) {
            var pairs: [(String, FuzzJSON)] = [
                ("auto_renew_product_id", .string(rng.pick(products))), ("auto_renew_status", flag(rng.chance(0.7), &rng)),
            ]
            if rng.chance(0.9) { pairs.append(("original_transaction_id", .string(otid))) } else { pairs.append(("product_id", .string(products[0]))) }
            if rng.chance(0.3) { pairs.append(("is_in_billing_retry_period", flag(rng.chance(0.6), &rng))) }
            if rng.chance(0.2) { pairs.append(("grace_period_expires_date_ms", number(nowMs + Int64(rng.int(10) - 5) * FuzzTests.day, &rng))) }
            if rng.chance(0.3) { pairs.append(("expiration_intent", .string(String(1 + rng.int(5))))) }
            renewals.append(.object(pairs))
        }
        let status = rng.chance(0.9) ? 0 : 21006
        var pairs: [(String, FuzzJSON)] = [
            ("status", rng.chance(0.8) ? .number(String(status)) : .string(String(status))),
            ("environment", .string(rng.chance(0.8) ? "Production" : "Sandbox")),
            ("receipt", .object([("bundle_id", .string("com.example")), ("request_date_ms", .string(String(nowMs))), ("in_app", .array(Array(entries.prefix(2))))])),
            ("latest_receipt", .string("TkVXLVJFQ0VJUFQ=")),
        ]
        var shape = "\(entries.count) entries"
        if entries.count == 1, rng.chance(0.2) {
            shape += ", iOS 6 single object"
            pairs.append((status == 21006 ? "latest_expired_receipt_info" : "latest_receipt_info", entries[0]))
        } else {
            pairs.append(("latest_receipt_info", .array(entries)))
        }
        if !renewals.isEmpty || rng.chance(0.5) { pairs.append(("pending_renewal_info", .array(renewals))) }
        if rng.chance(0.2) { pairs.append(("is-retryable", .bool(false))) }
        if rng.chance(0.2) { pairs.append(("unknown_future_key", .object([("nested", .array([.number("1")]))]))) }
        return Body(json: .object(pairs), transactionCount: entries.count, shape: shape)
    }
}
