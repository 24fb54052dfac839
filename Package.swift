// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "winnow",
  products: [
    .library(name: "Winnow", targets: ["Winnow"]),
    .library(name: "WinnowWebhook", targets: ["WinnowWebhook"]),
    .library(name: "WinnowServer", targets: ["WinnowServer"]),
    .executable(name: "winnow", targets: ["WinnowCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CPCRE2",
      pkgConfig: "libpcre2-8",
      providers: [.apt(["libpcre2-dev"])]
    ),
    .target(
      name: "Winnow",
      dependencies: ["CPCRE2", "CWinnowFilter", .product(name: "Logging", package: "swift-log")]
    ),
    // The raw start filter's first stage with AVX2, chosen at run time (see `StartFilter`).
    .target(name: "CWinnowFilter"),
    .target(
      name: "WinnowWebhook",
      dependencies: [
        "Winnow",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]
    ),
    // The HTTP service: Hummingbird, service lifecycle and metrics stay out of the core.
    .target(
      name: "WinnowServer",
      dependencies: [
        "Winnow",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Logging", package: "swift-log"),
        // The platform's mute and ban calls for repeat offenders.
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        // Replicas sharing app lists through PostgreSQL.
        "WinnowStore",
      ],
      // The console page's source: embedded by scripts/embed-console.py.
      exclude: ["console.html"]
    ),
    // App lists shared by replicas through PostgreSQL: the database stays out of the core.
    .target(
      name: "WinnowStore",
      dependencies: [
        "Winnow",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // Runs before `main`: ignores SIGHUP for `winnow serve` from the program's first code.
    .target(name: "CWinnowStartup"),
    .executableTarget(
      name: "WinnowCLI",
      dependencies: [
        "CWinnowStartup",
        "Winnow",
        "WinnowWebhook",
        "WinnowServer",
        "WinnowStore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // What several test targets share: a real HTTP server on loopback for the tests of reviewer
    // calls, and a seeded random number generator.
    .target(
      name: "WinnowTestSupport",
      dependencies: [
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      path: "Tests/Support"
    ),
    .testTarget(
      name: "WinnowTests",
      dependencies: [
        "Winnow",
        "WinnowTestSupport",
        // A reference SHA-1 for the property test of the platform signature's own.
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "WinnowWebhookTests",
      dependencies: [
        "WinnowWebhook",
        "WinnowTestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]
    ),
    .testTarget(
      name: "WinnowCLITests",
      dependencies: [
        "WinnowCLI",
        "WinnowStore",
        "WinnowTestSupport",
        "WinnowWebhook",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
