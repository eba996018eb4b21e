// swift-tools-version:5.4
// Coverage-guided fuzz targets (libFuzzer), one executable per parser of outside input, in the shape
// swift-asn1 and swift-certificates use: a package of its own beside the tests, depending on the
// main package by path. Built only by scripts/fuzz.sh, with
// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library` into .build-fuzz (libFuzzer supplies
// `main`; a plain `swift build` here fails to link). Tools version 5.4 on purpose: from 5.5 on,
// SwiftPM renames an executable's entry point to `<target>_main` and links to that, which a
// libFuzzer target (no entry point of its own) does not have. Each target reaches the parser's internals with
// `@testable import`, which works because the debug build compiles every module with testing
// enabled. See docs/fuzzing.md.
import PackageDescription

/// Target name: whether it also needs the simulator (to sign a fuzzed payload Apple's way).
let targets: [(name: String, simulator: Bool)] = [
    ("FuzzOnePassJSON", false),
    ("FuzzStrictJSON", false),
    ("FuzzAppReceipt", false),
    ("FuzzImportFile", false),
    ("FuzzSalesReport", false),
    ("FuzzAppsFile", false),
    ("FuzzSignedData", false),
    ("FuzzNotificationBody", true),
]

let package = Package(
    name: "subrecon-fuzz",
    dependencies: [.package(name: "subrecon", path: "..")],
    targets: targets.map { target in
        .executableTarget(
            name: target.name,
            dependencies: [.product(name: "SubRecon", package: "subrecon")]
                + (target.simulator ? [.product(name: "AppStoreSimulator", package: "subrecon")] : [])
        )
    }
)
