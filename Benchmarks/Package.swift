// swift-tools-version: 6.1
// Winnow's benchmarks (ordo-one/package-benchmark), one executable target per area. Run from
// this folder: `swift package benchmark` (release build; first run builds everything, ~4 min).
import Foundation
import PackageDescription

// A path dependency's package identity is its folder's name, which is whatever a clone was
// called: read it rather than assume it.
let winnowPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent

let benchmarkDependencies: [Target.Dependency] = [
  .product(name: "Benchmark", package: "benchmark"),
  .product(name: "Winnow", package: winnowPackage),
  "WinnowBenchmarkSupport",
]

let package = Package(
  name: "WinnowBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .target(
      name: "WinnowBenchmarkSupport",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"), .product(name: "Winnow", package: winnowPackage),
      ],
      path: "Support"
    )
  ]
    + ["Build", "Scan", "Regex", "Moderation", "Dump"].map { area in
      .executableTarget(
        name: area,
        dependencies: benchmarkDependencies,
        path: "Benchmarks/\(area)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
      )
    },
  swiftLanguageModes: [.v6]
)
