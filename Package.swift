// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "winnow",
  products: [
    .library(name: "Winnow", targets: ["Winnow"]),
    .executable(name: "winnow", targets: ["WinnowCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
    .executableTarget(
      name: "WinnowCLI",
      dependencies: [
        "Winnow",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "WinnowTests",
      dependencies: [
        "Winnow",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "WinnowCLITests",
      dependencies: ["WinnowCLI"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
