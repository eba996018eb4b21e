@testable import SubReconAppStore

/// OnePassJSONScanner through every decoder built on it: verifyReceipt answers, the App Store
/// Server API's bodies and signed payloads, notification payloads and bodies. Any bytes must give
/// a value or a typed error, never a trap or an out-of-bounds read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? VerifyReceiptResponse.decode(bytes)
    _ = try? ServerAPIWire.StatusResponse.scan(bytes)
    _ = try? ServerAPIWire.HistoryResponse.scan(bytes)
    _ = try? SignedTransactionPayload.scan(bytes)
    _ = try? SignedRenewalPayload.scan(bytes)
    _ = ServerAPIWire.ErrorBody.scan(bytes)
    _ = try? NotificationPayload.scan(bytes)
    _ = try? NotificationBody.scan(bytes)
    return 0
}
