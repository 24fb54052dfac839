// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "winnow",
  products: [
    .library(name: "Winnow", targets: ["Winnow"]),
    .library(name: "WinnowWebhook", targets: ["WinnowWebhook"]),
    .executable(name: "winnow", targets: ["WinnowCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CPCRE2",
      pkgConfig: "libpcre2-8",
      providers: [.apt(["libpcre2-dev"])]
    ),
    .target(
      name: "Winnow",
      dependencies: ["CPCRE2", .product(name: "Logging", package: "swift-log")]
    ),
    .target(
      name: "WinnowWebhook",
      dependencies: [
        "Winnow",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]
    ),
    .executableTarget(
      name: "WinnowCLI",
      dependencies: [
        "Winnow",
        "WinnowWebhook",
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
        "WinnowTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
