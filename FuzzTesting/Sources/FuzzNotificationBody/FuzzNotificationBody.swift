import Dispatch
@testable import AppStoreSimulator
@testable import AppleSignedData
@testable import SubReconAppStore

/// A notification body as the receiver gets it, through the calls NotificationProcessor makes
/// before it stores anything (NotificationBody.scan, then SignedItemVerifier.notification):
/// 1. the input as the POSTed body, verified against Apple's root (a refusal is the expected end);
/// 2. the input as signed payloads, signed with the simulator's chain and verified against the
///    simulator's root, so the checks after trust (envelope, bundle, environment, the signed
///    transaction and renewal) are fuzzed too. The input is up to three parts separated by a NUL
///    byte (never valid in JSON): the notification's payload, then a transaction's and a
///    renewal's, which are signed and put in place of the strings `signed_transaction_info_value`
///    and `signed_renewal_info_value` (the placeholders of Apple's library's test files).
/// Every outcome must be a value or a refusal, never a trap.
private let nowMs: Int64 = 1_700_000_000_000
private let apps = [AppIdentity(bundleID: "com.example", appAppleID: 41_234)]
private let authority = try! SimulatedSigningAuthority(nowMs: nowMs)
private let appleItems = SignedItemVerifier(verifier: .apple, apps: apps)
private let simulatedItems = SignedItemVerifier(
    verifier: try! SignedDataVerifier(rootPEM: authority.rootCertificatePEM, clock: { nowMs }), apps: apps)
private let placeholders = [Array("signed_transaction_info_value".utf8), Array("signed_renewal_info_value".utf8)]

private func receive(_ body: [UInt8], with items: SignedItemVerifier) {
    guard let signedPayload = try? NotificationBody.scan(body).signedPayload else { return }
    let done = DispatchSemaphore(value: 0)
    Task {
        _ = try? await items.notification(signedPayload)
        done.signal()
    }
    done.wait()
}

private func signed(_ payload: [UInt8]) -> [UInt8] {
    SimulatedJWSSigner.sign(payload: payload, with: authority.chain(.valid))
}

/// `bytes` with the first occurrence of `target` replaced.
private func replacing(_ target: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    guard bytes.count >= target.count else { return bytes }
    for start in 0...(bytes.count - target.count) where bytes[start..<(start + target.count)].elementsEqual(target) {
        return Array(bytes[..<start]) + replacement + Array(bytes[(start + target.count)...])
    }
    return bytes
}

/// Before the first input: the verifiers, the simulator's chains, and the simulated chain in the
/// verifier's cache. Made during an input instead, these long-lived objects would be reported as
/// leaks (LeakSanitizer cannot follow every reference Swift stores, e.g. in an enum's payload).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    _ = (appleItems, placeholders)
    let payload = #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1700000000000,"data":{"bundleId":"com.example","environment":"Sandbox"}}"#
    receive(Array(#"{"signedPayload":""#.utf8) + signed(Array(payload.utf8)) + Array(#""}"#.utf8), with: simulatedItems)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    receive(bytes, with: appleItems)
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map(Array.init)
    // Signing and verifying cost milliseconds: a payload the verifier would refuse once trusted
    // anyway (not a notification's JSON) is not signed.
    guard (try? NotificationPayload.scan(parts[0])) != nil else { return 0 }
    var payload = parts[0]
    for (placeholder, part) in zip(placeholders, parts.dropFirst()) {
        payload = replacing(placeholder, with: signed(part), in: payload)
    }
    receive(Array(#"{"signedPayload":""#.utf8) + signed(payload) + Array(#""}"#.utf8), with: simulatedItems)
    return 0
}
