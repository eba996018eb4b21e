@testable import AppleSignedData

/// The app-receipt PKCS#7 reader: the bytes as a DER receipt, and as the base64 text an app
/// server sends. Any input gives the receipt's contents or an AppReceiptError.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? AppReceiptReader.purchases(receipt: bytes)
    _ = try? AppReceiptReader.purchases(base64: String(decoding: bytes, as: UTF8.self))
    return 0
}
