// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // An async function runs on its caller's executor unless it is marked @concurrent (SE-0461).
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
    name: "inkra-server",
    // iOS for InkraClient, the app's client (the rest of the package builds for macOS and Linux).
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "InkraHandlers", targets: ["InkraHandlers", "InkraRuntime"]),
        .library(name: "InkraTesting", targets: ["InkraTesting"]),
        // The app's client of the API: Foundation only, nothing of the server's modules.
        .library(name: "InkraClient", targets: ["InkraClient"]),
        .executable(name: "inkra-emulator", targets: ["inkra-emulator"]),
        .executable(name: "bootstrap", targets: ["Bootstrap"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // What several layers need of time: the request's deadline (which carries the trace), civil
        // (UTC calendar) time, the backoff between attempts, racing work against a deadline.
        .target(name: "InkraTime", dependencies: ["InkraTracing"], swiftSettings: strictSettings),
        // X-Ray tracing: the trace header, spans and their recorder, the segment document.
        .target(name: "InkraTracing", dependencies: ["InkraJSON"], swiftSettings: strictSettings),
        // The app's client (iOS, macOS, Linux): URLSession, the API's rules, its own types.
        .target(name: "InkraClient", swiftSettings: strictSettings),
        .target(name: "SingleTable", dependencies: ["InkraTime", "InkraJSON"], swiftSettings: strictSettings),
        .target(name: "InkraJSON", swiftSettings: strictSettings),
        // The text rules of HTTP fields (ASCII case-insensitive names, optional whitespace), for this
        // package's modules only (`package` access).
        .target(name: "HTTPText", swiftSettings: strictSettings),
        // The cryptography the shipped modules need (SHA-2, HMAC, HKDF, AES-GCM, RSA and P-256
        // signatures) over swift-nio-ssl's BoringSSL, which TLS links anyway, so that `bootstrap` links one
        // BoringSSL: its `CNIOBoringSSL` module comes with the NIOSSL product.
        .target(
            name: "InkraCrypto",
            dependencies: [.product(name: "NIOSSL", package: "swift-nio-ssl")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "InkraUsage",
            dependencies: ["InkraTime", "InkraJSON", "SingleTable", "InkraCrypto", "HTTPText"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "InkraAuth",
            dependencies: [
                "InkraTime",
                "InkraTracing",
                "InkraJSON",
                "HTTPText",
                "InkraCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "InkraHandlers",
            dependencies: [
                "InkraJSON",
                "HTTPText",
                "InkraAuth",
                "InkraTime",
                "InkraTracing",
                "InkraUsage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LambdaRuntimeAPI",
            dependencies: ["HTTPText", "InkraJSON", "InkraTime"],
            swiftSettings: strictSettings
        ),
        // What a package's own tests of the functions need (events, a clock, a seeded store, a scripted
        // generator, tokens, results); nothing of the emulator.
        .target(
            name: "InkraTesting",
            dependencies: ["InkraHandlers", "InkraUsage", "InkraAuth", "InkraTime", "SingleTable", "InkraJSON"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "OutboundHTTP",
            dependencies: [
                "HTTPText",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "InkraLLM",
            dependencies: [
                "InkraJSON",
                "InkraTime",
                "InkraTracing",
                "HTTPText",
                "OutboundHTTP",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // AWS plumbing that is not DynamoDB's: credentials and SigV4, the one reader of the AWS
        // environment variables, the signed-request transport, and the JSON-protocol services
        // (SSM, Secrets Manager, Cognito administration).
        .target(
            name: "AWSServices",
            dependencies: [
                "InkraTime",
                "InkraJSON",
                "HTTPText",
                "OutboundHTTP",
                "InkraCrypto",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The DynamoDB client, over AWSServices' credentials and signed-request transport.
        .target(
            name: "DynamoDBTable",
            dependencies: [
                "AWSServices", "InkraTime", "InkraTracing", "SingleTable", "InkraJSON", "HTTPText", "InkraCrypto",
            ],
            swiftSettings: strictSettings
        ),
        // The local Cognito user pool `serve` runs: users, SRP-6a, tokens.
        .target(
            name: "LocalUserPool",
            dependencies: [
                "InkraJSON",
                "InkraAuth",
                "InkraTime",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EmulatorKit",
            dependencies: [
                "InkraRuntime",
                "LocalUserPool",
                "InkraJSON",
                "HTTPText",
                "AWSServices",
                "DynamoDBTable",
                "OutboundHTTP",
                "InkraHandlers",
                "InkraAuth",
                "InkraTime",
                "InkraTracing",
                "InkraUsage",
                "SingleTable",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // zlib, for `inkra-emulator import` of CloudWatch Logs' gzip'd exports to S3.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(
            name: "EmulatorServer",
            dependencies: [
                "DynamoDBTable",
                "HTTPText",
                "EmulatorKit",
                "LocalUserPool",
                "InkraJSON",
                "SingleTable",
                "InkraHandlers",
                "InkraTime",
                "InkraUsage",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // The console's page, as it is: no build step.
            resources: [.copy("Console/Assets")],
            swiftSettings: strictSettings
        ),
        // C wrappers that keep the packaged bootstrap on provided.al2023's glibc 2.34: inert unless
        // scripts/package-bootstrap.sh links with --wrap (see Sources/GlibcCompat/GlibcCompat.c).
        .target(name: "GlibcCompat"),
        // The Lambda custom runtime: settings, start-up, the loop, logs and metrics, and the list of
        // functions `_HANDLER` chooses from; `bootstrap` is its `@main`.
        .target(
            name: "InkraRuntime",
            dependencies: [
                "LambdaRuntimeAPI",
                "InkraHandlers",
                "InkraJSON",
                "HTTPText",
                "InkraAuth",
                "InkraUsage",
                "InkraLLM",
                "InkraTime",
                "InkraTracing",
                "SingleTable",
                "AWSServices",
                "DynamoDBTable",
                "OutboundHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "Bootstrap",
            dependencies: ["GlibcCompat", "InkraRuntime", "InkraTime"],
            path: "bootstrap",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "inkra-emulator",
            dependencies: [
                "EmulatorKit",
                "EmulatorServer",
                "AWSServices",
                "DynamoDBTable",
                "HTTPText",
                "SingleTable",
                "InkraHandlers",
                "InkraJSON",
                "InkraAuth",
                "InkraTime",
                "InkraUsage",
                "LocalUserPool",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "emulator",
            resources: [.copy("dev-keys")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "InkraTestSupport",
            dependencies: [
                "AWSServices", "DynamoDBTable", "HTTPText", "InkraJSON", "InkraUsage", "OutboundHTTP", "SingleTable",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/InkraTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "SingleTableTests",
            dependencies: [
                "SingleTable", "AWSServices", "DynamoDBTable", "InkraTestSupport", "EmulatorKit", "InkraTesting",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "DynamoDBTableTests",
            dependencies: [
                "AWSServices", "DynamoDBTable", "SingleTable", "InkraJSON", "InkraTestSupport", "InkraUsage",
                "InkraHandlers", "InkraTime", "InkraTracing",
                "EmulatorKit", "Bootstrap",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "InkraLLMTests", dependencies: ["InkraLLM", "InkraJSON", "InkraTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "OutboundHTTPTests",
            dependencies: [
                "OutboundHTTP", "InkraTestSupport",
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "InkraUsageTests", dependencies: ["InkraUsage", "InkraTime", "InkraTesting", "InkraTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            // The client against URLProtocol stubs, and against the built inkra-emulator's serve.
            name: "InkraClientTests",
            dependencies: [
                "InkraClient", "InkraTestSupport", "OutboundHTTP", "inkra-emulator",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "InkraTimeTests", dependencies: ["InkraTime"], swiftSettings: strictSettings),
        .testTarget(
            name: "InkraTracingTests", dependencies: ["InkraTracing", "InkraTime"], swiftSettings: strictSettings),
        .testTarget(name: "InkraJSONTests", dependencies: ["InkraJSON"], swiftSettings: strictSettings),
        .testTarget(name: "HTTPTextTests", dependencies: ["HTTPText"], swiftSettings: strictSettings),
        .testTarget(
            // Known-answer vectors, and cross-checks against swift-crypto (which only tests may use).
            name: "InkraCryptoTests",
            dependencies: [
                "InkraCrypto", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "InkraAuthTests",
            dependencies: [
                "InkraAuth", "InkraJSON", "InkraTesting", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "InkraHandlersTests",
            dependencies: [
                "InkraHandlers", "InkraAuth", "InkraUsage", "InkraJSON", "SingleTable", "InkraTesting", "HTTPText",
                "InkraTestSupport", "InkraTime",
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // Imports only what a package using InkraTesting imports.
            name: "InkraTestingTests",
            dependencies: ["InkraTesting", "InkraHandlers", "InkraUsage", "InkraAuth", "SingleTable", "InkraJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // The Runtime API client and loop; the built bootstrap answers the refusal tests.
            name: "LambdaRuntimeAPITests",
            dependencies: [
                "LambdaRuntimeAPI", "EmulatorKit", "EmulatorServer", "InkraJSON", "InkraTestSupport", "Bootstrap",
                "InkraUsage",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // bootstrap: its settings and start-up, and the built binary driven as Lambda drives it.
            name: "BootstrapTests",
            dependencies: [
                "Bootstrap", "InkraRuntime", "EmulatorKit", "EmulatorServer", "InkraJSON", "InkraTestSupport",
                "inkra-emulator",
                "InkraLLM", "AWSServices", "DynamoDBTable", "OutboundHTTP", "InkraAuth", "InkraTesting",
                "InkraHandlers", "InkraUsage",
                "SingleTable", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EmulatorServerTests",
            dependencies: [
                "LocalUserPool",
                "EmulatorServer", "EmulatorKit", "InkraJSON", "InkraTestSupport", "inkra-emulator", "Bootstrap",
                "OutboundHTTP",
                "SingleTable",
                "InkraHandlers", "InkraUsage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalUserPoolTests",
            dependencies: [
                "LocalUserPool", "InkraAuth", "InkraJSON", "EmulatorKit", "EmulatorServer", "InkraHandlers",
                "InkraTestSupport", "InkraTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EmulatorKitTests",
            dependencies: [
                "EmulatorKit", "InkraHandlers", "InkraAuth", "InkraJSON", "InkraUsage", "SingleTable", "InkraTime",
                "InkraTestSupport", "InkraRuntime", "DynamoDBTable",
                "inkra-emulator",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)

// The benchmarks (`inkra-benchmarks`, Benchmarks/) and the fuzzing (`inkra-fuzz`, InkraFuzzTargets and
// its seed-corpus tests) are this package's own tools, not what its users build: they are in the
// package only when INKRA_DEVELOPMENT=1 is set (scripts/benchmarks.sh, scripts/fuzz.sh and CI set
// it), so a package that depends on this one builds none of them.
if Context.environment["INKRA_DEVELOPMENT"] == "1" {
    package.products += [
        .executable(name: "inkra-benchmarks", targets: ["inkra-benchmarks"]),
        .executable(name: "inkra-fuzz", targets: ["inkra-fuzz"]),
    ]
    package.targets += [
        .executableTarget(
            name: "inkra-benchmarks",
            dependencies: [
                "EmulatorKit", "InkraHandlers", "InkraAuth", "InkraUsage", "InkraJSON", "SingleTable",
                "LambdaRuntimeAPI", "EmulatorServer", "MinimalRuntimeAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks",
            exclude: ["MinimalRuntimeAPI"],
            swiftSettings: strictSettings
        ),
        // The benchmarks' floor for the local Runtime API: a minimal server in C (fixed event, keep-alive).
        .target(name: "MinimalRuntimeAPI", path: "Benchmarks/MinimalRuntimeAPI"),
        .target(
            name: "InkraFuzzTargets",
            dependencies: [
                "InkraJSON", "InkraAuth", "InkraHandlers", "InkraTime", "InkraUsage", "SingleTable",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "inkra-fuzz", dependencies: ["InkraFuzzTargets"], path: "Fuzz/Driver", swiftSettings: strictSettings),
        .testTarget(
            name: "InkraFuzzTargetsTests",
            dependencies: ["InkraFuzzTargets", "InkraTestSupport", "InkraAuth", "SingleTable"],
            swiftSettings: strictSettings),
    ]
}

// The code samples of README.md, docs/ and the DocC catalogs, a file per block that
// scripts/samples.py writes under .build/samples: in the package only when that script sets
// INKRA_SAMPLES=1. PublicSamples sees what a package depending on this one sees (public
// declarations of the products' modules, `packageAccess: false`); PackageSamples holds the samples
// of the catalogs of modules that are not products, which show `package` declarations.
if Context.environment["INKRA_SAMPLES"] == "1" {
    package.targets += [
        .testTarget(
            name: "PublicSamples",
            dependencies: [
                "InkraHandlers", "InkraRuntime", "InkraTesting", "InkraClient", "InkraJSON", "InkraUsage", "InkraAuth",
            ],
            path: ".build/samples/PublicSamples",
            packageAccess: false,
            // A sample's unused `let` is there for the reader: only errors are news.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
        ),
        .testTarget(
            name: "PackageSamples",
            dependencies: [
                "SingleTable", "DynamoDBTable", "AWSServices", "InkraTime", "InkraUsage", "InkraAuth", "InkraJSON",
                "LambdaRuntimeAPI",
            ],
            path: ".build/samples/PackageSamples",
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
        ),
    ]
}
