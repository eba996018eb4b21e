@testable import AppleSignedData

/// StrictJSON, the reader of JWS headers, signed payloads and the apps file: any bytes give a value
/// or a JSONReadError (duplicate keys and deep nesting included), never a trap or a stack overflow.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? StrictJSON.parse(bytes)
    return 0
}
