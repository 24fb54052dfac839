// swift-tools-version: 6.1
// A libFuzzer target for Winnow's untrusted-input paths. Run `scripts/fuzz` from the repository
// root; it builds this package with `--sanitize=fuzzer` (a plain `swift build` cannot link it:
// libFuzzer supplies `main`).
import Foundation
import PackageDescription

// A path dependency's package identity is its folder's name, which is whatever a clone was
// called: read it rather than assume it.
let winnowPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .lastPathComponent

let package = Package(
  name: "WinnowFuzz",
  dependencies: [.package(path: "..")],
  targets: [
    .executableTarget(name: "WinnowFuzz", dependencies: [.product(name: "Winnow", package: winnowPackage)])
  ],
  swiftLanguageModes: [.v6]
)
