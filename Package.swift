// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "subrecon",
    products: [
        .executable(name: "subrecon", targets: ["subrecon"]),
        .executable(name: "subrecon-bench", targets: ["subrecon-bench"]),
        .library(name: "SubRecon", targets: ["SubRecon"]),
        .library(name: "AppStoreSimulator", targets: ["AppStoreSimulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        // App Store signed data: x5c chains to Apple's root (X509), app receipts (PKCS#7, SwiftASN1).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // PostgreSQL, the second store (several workers on several hosts): the ecosystem's driver.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS settings for PostgreSQL connections (already in the graph through postgres-nio).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The notification receiver: a well-kept HTTP server (keep-alive, request size limits) and
        // graceful shutdown on SIGTERM, instead of growing the simulator's raw NIO handler.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Apple's sales reports arrive as gzip files: inflate (worker) and deflate (simulator)
        // through the system's zlib, on the NIO ByteBuffers we already have.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // libcurl from the system (libcurl4-openssl-dev), plus typed wrappers for its variadic calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The HTTP seam (one small protocol) and its libcurl-multi implementation.
        .target(
            name: "SubReconHTTP",
            dependencies: ["CCurl"]
        ),
        // Apple's signed data and our credentials, with no I/O: JWS verified to a pinned root (x5c
        // chain, Apple's marker OIDs, chain cache), the App Store Server API bearer JWT (ES256),
        // and transaction ids read from a PKCS#7 app receipt. Used by the worker and the simulator.
        .target(
            name: "AppleSignedData",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // A fake App Store verifyReceipt service: scenarios, clock, fault injection, HTTP server.
        .target(
            name: "AppStoreSimulator",
            dependencies: [
                "AppleSignedData",
                // The libcurl client that POSTs notifications to the app's URL (http and https).
                "SubReconHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        // The model: what Apple says in our words, receipts and renewal records, the state derivation,
        // the reconciler, updates, changes, the due policy, money arithmetic and calendar days. Pure:
        // no I/O, no database, no network; every target above depends on it and it on nothing.
        .target(
            name: "SubReconModel",
            dependencies: [
                // SHA-256 of receipt data (ReceiptFingerprint): a pure function, no I/O.
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        // The Apple clients: verifyReceipt, the App Store Server API (one connection owning the token,
        // the rate limiter, error classification and Retry-After), notification payloads, and the
        // sales-report client and parser. Knows the model, never a store.
        .target(
            name: "SubReconAppStore",
            dependencies: [
                "SubReconModel", "SubReconHTTP", "AppleSignedData",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The stores: SQLite (GRDB) and PostgreSQL (postgres-nio) behind `SubscriptionStore`, with every
        // SQL string the application runs (Schema/). Knows the model, never an Apple client.
        .target(
            name: "SubReconStore",
            dependencies: [
                "SubReconModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API for the reconciliation's hot statements (see DirectStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Its pool's error when no connection could be made for a while (an unreachable server).
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The application: the nightly run, notifications, import, reports and the dashboard,
        // observability, parity, Apple's sales reports, configuration. The executable only parses
        // arguments and calls in here.
        .target(
            name: "SubRecon",
            dependencies: [
                "SubReconModel", "SubReconAppStore", "SubReconStore", "SubReconHTTP", "AppleSignedData",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // A file imports each of our modules it uses, members included: its imports say its layer.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // `subrecon demo`: the whole path against the built-in simulator. Its own target, so the
        // library (and everything that links it) never depends on the simulator.
        .target(
            name: "SubReconDemo",
            dependencies: [
                "SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "AppStoreSimulator", "AppleSignedData", "SubReconHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A file imports each of our modules it uses, members included: its imports say its layer.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // `notifications serve`: Apple's POSTs into `NotificationIntake`, metrics, graceful shutdown.
        // A target of its own so that SubRecon (and everything else linking it) stays free of Hummingbird.
        .target(
            name: "NotificationReceiver",
            dependencies: [
                "SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "AppleSignedData",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // `.sigterm`/`.sigint` for graceful shutdown are UnixSignals' (imported by name, see swiftSettings).
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The HTTP/1 decoder's parts: where each request ends, for the read deadline.
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // A file imports each of our modules it uses, members included: its imports say its layer.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .executableTarget(
            name: "subrecon",
            dependencies: [
                "SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "SubReconDemo", "AppStoreSimulator", "NotificationReceiver", "SubReconHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A file imports each of our modules it uses, members included: its imports say its layer.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Benchmarks: prints throughput, CPU, memory and Apple-call figures; never a test.
        .executableTarget(
            name: "subrecon-bench",
            dependencies: [
                "SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "AppStoreSimulator", "SubReconHTTP", "AppleSignedData",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The workers benchmark makes (and drops) a database of its own on a PostgreSQL server.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // A file imports each of our modules it uses, members included: its imports say its layer.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // What several test targets share: a seeded generator (SplitMix64), the `openssl s_server`
        // launcher and the test PKI (a chain shaped like Apple's, a self-signed TLS certificate).
        // Only Foundation and the crypto packages below it, so any test target can use it.
        .target(
            name: "SubReconTestSupport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SubReconTests",
            dependencies: ["SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "AppleSignedData", "SubReconTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Fixtures")]
        ),
        // The model's own tests (calendar days, money): no database, no HTTP, no Apple client.
        .testTarget(
            name: "SubReconModelTests",
            dependencies: ["SubReconModel", "SubReconTestSupport"]
        ),
        .testTarget(
            name: "AppleSignedDataTests",
            dependencies: [
                "AppleSignedData",
                "SubReconTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: [
                "SubReconHTTP",
                "SubReconTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "AppStoreSimulatorTests",
            dependencies: [
                "AppStoreSimulator",
                "SubReconTestSupport",
                // Server API tests check signatures and certificate chains independently.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // Sales report tests inflate the simulator's gzip files.
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Test notification tests receive the simulator's POSTs on a small NIO server.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "SubRecon", "SubReconModel", "SubReconAppStore", "SubReconStore", "AppStoreSimulator", "SubReconHTTP", "AppleSignedData", "NotificationReceiver",
                "SubReconTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                // SQLite's C API (same package as GRDB): tests lower a connection's limits.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // A database per test in the throwaway PostgreSQL cluster.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            // Golden CSV files are read from the source tree by path (see ReportGoldenTests).
            exclude: ["Golden"]
        ),
    ]
)
