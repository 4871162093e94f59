// swift-tools-version:6.0
//
// Pushwire: a self-hosted push-notification service for interactive notifications.
// Targets, from the bottom up:
//   CProtobufC        libprotobuf-c, a Debian system library (apt: libprotobuf-c-dev)
//   PushwireProtoC    protoc-c output for Protos/ (generated, committed)
//   PushwireWire      generated Swift wrappers, frame codec, status codes; no sockets
//   CPushwireLinux    a C shim for epoll, eventfd, accept4, ppoll, a thread's niceness and name (not exported by Swift's Glibc)
//   PushwireSystem    the syscall layer: sockets, epoll, addresses, clocks, WorkerThread, one error type (server and client)
//   PushwireRuntime   epoll event loops, the RPC server, the HTTP door, logging and metrics
//   PushwireJSONBridge proto3 JSON ↔ protobuf for any message of the contract (the CLI's and the HTTP door's)
//   CHTTPParser       Node's http_parser, a Debian system library (apt: libhttp-parser-dev)
//   PushwireClient    the typed Swift client and its transport (on PushwireSystem, not the server runtime)
//   CSQLite           SQLite 3, a Debian system library (apt: libsqlite3-dev)
//   PushwireStore     the store contract: the protocols every engine meets, their records and errors (no engine)
//   PushwireSQLiteStore  the embedded engine: SQLite in a data directory
//   CLibPQ            libpq, PostgreSQL's client library, a Debian system library (apt: libpq-dev)
//   PushwirePostgresStore  the networked engine: PostgreSQL through libpq, shared by several servers
//   PushwireDelivery  the gateway protocol and the simple gateways (file sink, null)
//   CJemalloc         jemalloc, pushwired's memory allocator, a Debian system library (apt: libjemalloc-dev)
//   CCurl, COpenSSL   libcurl (HTTP/2) and OpenSSL (libssl TLS, libcrypto ES256), Debian system libraries
//   PushwireOpenSSL   the one reader of OpenSSL's error queue, linked by every TLS user
//   CNGHTTP2          libnghttp2 (HTTP/2 framing), a Debian system library (apt: libnghttp2-dev)
//   PushwireAPNs      the APNs gateway: HTTP/2 on libnghttp2 + libssl (or libcurl), JWT on libcrypto
//   PushwireService   the push domain: applications, devices, categories, messages, handlers
//   PushwirePushwoosh the Pushwoosh-compatible API (/json/1.3/…) over the HTTP door, calling the methods above
//   pushwire-codegen  the generator of PushwireWire/Generated (run by Scripts/generate)
//   pushwired, pushwire, pushwire-bench, pushwire-codec-bench, pushwire-apns-bench: thin executables
// Tests/<Target>Tests mirror the sources (PushwireCLITests: pushwire; PushwiredTests: pushwired as a
// process); Tests/PushwireTestSupport holds their shared helpers; Tests/Vectors holds golden frames
// shared with the C and Python clients. Fuzz/ holds the libFuzzer targets, declared only when Scripts/fuzz builds them.
import PackageDescription

let swiftSettings: [SwiftSetting] = []

// pushwired links jemalloc (CJemalloc) unless the environment has PUSHWIRE_SYSTEM_MALLOC, which
// Scripts/test-asan sets: under AddressSanitizer the sanitizer's allocator must serve every
// malloc, and memory jemalloc handed out then freed through ASan's free is a "bad-free". Without
// jemalloc, pushwired is built with the PUSHWIRE_SYSTEM_MALLOC condition (Allocator.swift).
let systemMalloc = Context.environment["PUSHWIRE_SYSTEM_MALLOC"] != nil
let allocatorDependencies: [Target.Dependency] = systemMalloc ? [] : ["CJemalloc"]
let pushwiredSettings: [SwiftSetting] = swiftSettings + (systemMalloc ? [.define("PUSHWIRE_SYSTEM_MALLOC")] : [])

let package = Package(
    name: "Pushwire",
    products: [
        .library(name: "PushwireWire", targets: ["PushwireWire"]),
        .library(name: "PushwireClient", targets: ["PushwireClient"]),
        .executable(name: "pushwired", targets: ["pushwired"]),
        .executable(name: "pushwire", targets: ["pushwire"]),
    ],
    targets: [
        .systemLibrary(
            name: "CProtobufC",
            pkgConfig: "libprotobuf-c",
            providers: [.apt(["libprotobuf-c-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        // libhttp-parser-dev ships no pkg-config file: the module map names the header and library.
        .systemLibrary(
            name: "CHTTPParser",
            providers: [.apt(["libhttp-parser-dev"])]
        ),
        .target(name: "PushwireProtoC", dependencies: ["CProtobufC"]),
        // PushwireOpenSSL: openSSLErrors(), the one reader of OpenSSL's error queue (server, client, APNs, bench, tests).
        .target(name: "PushwireOpenSSL", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "PushwireWire", dependencies: ["PushwireProtoC", "CProtobufC"], swiftSettings: swiftSettings),
        // CPushwireLinux: epoll, eventfd, accept4, ppoll, a thread's niceness and name, which Swift's Glibc module does not export.
        .target(name: "CPushwireLinux"),
        // PushwireJSONBridge: proto3 JSON ↔ protobuf, one implementation for the CLI and the server.
        .target(name: "PushwireJSONBridge", dependencies: ["PushwireWire", "CProtobufC"], swiftSettings: swiftSettings),
        // PushwireSystem: every syscall wrapped once (EINTR retried, EAGAIN a value), for the server and the client.
        .target(name: "PushwireSystem", dependencies: ["CPushwireLinux"], swiftSettings: swiftSettings),
        .target(
            name: "PushwireRuntime", dependencies: ["PushwireSystem", "PushwireWire", "CPushwireLinux", "PushwireJSON", "PushwireJSONBridge", "CHTTPParser", "COpenSSL", "PushwireOpenSSL"],
            swiftSettings: swiftSettings),
        .target(name: "PushwireClient", dependencies: ["PushwireSystem", "PushwireWire", "PushwireJSONBridge", "COpenSSL", "PushwireOpenSSL"], swiftSettings: swiftSettings),
        // PushwireJSON: JSON text written and read back by hand, byte for byte (payloads, stored specs).
        .target(name: "PushwireJSON", swiftSettings: swiftSettings),
        .target(name: "PushwireStore", dependencies: ["PushwireJSON"], swiftSettings: swiftSettings),
        .target(name: "PushwireSQLiteStore", dependencies: ["PushwireStore", "CSQLite", "PushwireJSON", "PushwireSystem"], swiftSettings: swiftSettings),
        .target(name: "PushwirePostgresStore", dependencies: ["PushwireStore", "PushwireJSON", "PushwireSystem", "CLibPQ"], swiftSettings: swiftSettings),
        .target(name: "PushwireDelivery", dependencies: ["PushwireJSON"], swiftSettings: swiftSettings),
        .target(name: "PushwireAPNs", dependencies: ["PushwireDelivery", "PushwireJSON", "CCurl", "COpenSSL", "PushwireOpenSSL", "CNGHTTP2"], swiftSettings: swiftSettings),
        .target(
            name: "PushwireService",
            dependencies: ["PushwireStore", "PushwireRuntime", "PushwireSystem", "PushwireWire", "PushwireDelivery", "PushwireAPNs", "PushwireJSON", "COpenSSL"],
            swiftSettings: swiftSettings
        ),
        // PushwirePushwoosh: Pushwoosh's /json/1.3 API on the HTTP door, translated to Pushwire's methods.
        .target(name: "PushwirePushwoosh", dependencies: ["PushwireRuntime", "PushwireWire", "PushwireJSONBridge"], swiftSettings: swiftSettings),
        // PushwireConsole: the operator console (Console/, embedded by Scripts/embed-console) at /console/.
        .target(name: "PushwireConsole", dependencies: ["PushwireRuntime"], swiftSettings: swiftSettings),
        .executableTarget(name: "pushwire-codegen", path: "Sources/PushwireCodegen"),
        .executableTarget(name: "pushwired", dependencies: ["PushwireRuntime", "PushwireService", "PushwireStore", "PushwireSQLiteStore", "PushwirePostgresStore", "PushwireDelivery", "PushwireAPNs", "PushwirePushwoosh", "PushwireConsole", "PushwireOpenSSL"] + allocatorDependencies, path: "Sources/Pushwired", swiftSettings: pushwiredSettings),
        .executableTarget(name: "pushwire", dependencies: ["PushwireClient", "PushwireOpenSSL"], path: "Sources/PushwireCLI", swiftSettings: swiftSettings),
        .executableTarget(name: "pushwire-bench", dependencies: ["PushwireClient", "PushwireRuntime", "PushwireSystem", "PushwireWire", "COpenSSL", "PushwireOpenSSL"], path: "Sources/PushwireBench", swiftSettings: swiftSettings),
        .executableTarget(name: "pushwire-apns-bench", dependencies: ["PushwireAPNs", "PushwireDelivery"], path: "Sources/PushwireAPNsBench", swiftSettings: swiftSettings),
        .executableTarget(
            name: "pushwire-codec-bench",
            dependencies: ["PushwireWire", "PushwireProtoC", "CProtobufC"],
            path: "Sources/PushwireCodecBench",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushwireWireTests",
            dependencies: ["PushwireWire", "PushwireProtoC", "CProtobufC"]
        ),
        // The syscall layer's thread type (WorkerThread).
        .testTarget(name: "PushwireSystemTests", dependencies: ["PushwireSystem"]),
        .testTarget(name: "PushwireRuntimeTests", dependencies: ["PushwireRuntime", "PushwireClient", "PushwireWire", "PushwireTestSupport", "COpenSSL"]),
        .testTarget(name: "PushwirePostgresStoreTests", dependencies: ["PushwirePostgresStore", "PushwireStore", "PushwireTestSupport"]),
        .testTarget(name: "PushwireSQLiteStoreTests", dependencies: ["PushwireSQLiteStore", "PushwireStore"]),
        // One suite written against the store protocols, run against every engine (an engine
        // joins with one file: a subclass of StoreContractTests naming its factory).
        .testTarget(name: "PushwireStoreContractTests", dependencies: ["PushwireStore", "PushwireSQLiteStore", "PushwirePostgresStore"]),
        .testTarget(name: "PushwireServiceTests", dependencies: ["PushwireService", "PushwireAPNs", "PushwireDelivery", "PushwireStore", "PushwireSQLiteStore", "PushwirePostgresStore", "PushwireRuntime", "PushwireClient", "PushwireWire", "PushwireTestSupport"]),
        .testTarget(name: "PushwireConsoleTests", dependencies: ["PushwireConsole", "PushwireRuntime"]),
        .testTarget(name: "PushwireDeliveryTests", dependencies: ["PushwireDelivery"]),
        .testTarget(name: "PushwireJSONTests", dependencies: ["PushwireJSON"]),
        .testTarget(name: "PushwireJSONBridgeTests", dependencies: ["PushwireJSONBridge", "PushwireProtoC", "CProtobufC"]),
        .testTarget(name: "PushwireAPNsTests", dependencies: ["PushwireAPNs", "PushwireDelivery"]),
        // Helpers every suite may use (the raw-protocol TestClient, the pushwired and executable
        // launchers, the fake server, Scripts/postgres); linked into the tests only.
        .target(name: "PushwireTestSupport", dependencies: ["PushwireWire", "PushwireSystem", "COpenSSL", "PushwireOpenSSL"], path: "Tests/PushwireTestSupport"),
        .testTarget(name: "PushwireClientTests", dependencies: ["PushwireClient", "PushwireRuntime", "PushwireWire", "PushwireTestSupport"]),
        // The `pushwire` CLI, in process (@testable) and as the built binary; the three binaries' shared conventions.
        .testTarget(name: "PushwireCLITests", dependencies: ["pushwire", "PushwireClient", "PushwireWire", "PushwireTestSupport"]),
        // pushwired as a process: options, backup and restore, install, operator log, service operation.
        .testTarget(name: "PushwiredTests", dependencies: ["PushwireClient", "PushwireSystem", "PushwireWire", "PushwireTestSupport"]),
        // The load generator's histogram, report and request template, and its option parsing.
        .testTarget(name: "PushwireBenchTests", dependencies: ["pushwire-bench", "PushwireWire"]),
        // pushwire-codegen's naming rules, and its output against the committed generated code.
        .testTarget(name: "PushwireCodegenTests", dependencies: ["pushwire-codegen"]),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets of Fuzz/ (docs/FUZZING.md): declared only when PUSHWIRE_FUZZ is set, which
// Scripts/fuzz does when it builds them with `-sanitize=fuzzer,address -parse-as-library
// -enable-testing`; an ordinary build neither sees nor compiles them. Each is an executable whose
// entry point (Fuzz/Driver/FuzzMain.swift, symlinked into every target) hands libFuzzer's driver
// the target's `fuzzOneInput` (exported as `LLVMFuzzerTestOneInput`).
if Context.environment["PUSHWIRE_FUZZ"] != nil {
    package.targets.append(.target(name: "CFuzzer", path: "Fuzz/CFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzer", "PushwireWire", "CProtobufC"], path: "Fuzz/Support"))
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("frame-decoder", ["PushwireWire"]),
        ("wire-validator", ["PushwireWire", "CProtobufC"]),
        ("scanned-request", ["PushwireRuntime", "PushwireWire"]),
        ("register-device-scanner", ["PushwireService", "PushwireWire"]),
        ("hot-frames", ["PushwireWire"]),
        ("json-text-reader", ["PushwireJSON"]),
        ("custom-data", ["PushwireService", "PushwireJSON"]),
        ("proto-json", ["PushwireJSONBridge", "PushwireWire", "CProtobufC"]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: "fuzz-\(target.name)", dependencies: ["FuzzSupport"] + target.dependencies, path: "Fuzz/Targets/\(target.name)"
        ))
    }
}
