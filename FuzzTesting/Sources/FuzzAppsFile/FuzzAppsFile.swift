import Foundation
@testable import SubRecon

/// The apps file (SUBRECON_APPS_FILE): any bytes give the apps or a ConfigurationError naming the
/// problem, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    _ = try? AppsFile.parse(Data(bytes: start, count: count), path: "fuzz.json")
    return 0
}
