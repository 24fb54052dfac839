import Foundation

/// Finds the built-in global list, so that `winnow` works from any working directory.
///
/// In order: `$WINNOW_GLOBAL`; `<prefix>/share/winnow/global` beside an installed
/// `<prefix>/bin/winnow` (see `scripts/install`); `wordlists/global` in a directory above the
/// executable, which is the checkout for a binary under `.build/`.
enum GlobalListLocator {
  static func builtInDirectory() -> String? {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["WINNOW_GLOBAL"], !path.isEmpty { return path }
    let executable = URL(fileURLWithPath: executablePath()).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    let installed = directory.deletingLastPathComponent().appendingPathComponent("share/winnow/global")
    if isDirectory(installed.path) { return installed.path }
    while directory.path != "/" {
      let candidate = directory.appendingPathComponent("wordlists/global")
      if isDirectory(candidate.path) { return candidate.path }
      directory = directory.deletingLastPathComponent()
    }
    return nil
  }

  /// The contact list (on unless `--no-contact`): `contact` beside the built-in global directory
  /// (`wordlists/contact`, or `<prefix>/share/winnow/contact`).
  static func contactDirectory() -> String? {
    guard let global = builtInDirectory() else { return nil }
    let contact = URL(fileURLWithPath: global).deletingLastPathComponent().appendingPathComponent("contact").path
    return isDirectory(contact) ? contact : nil
  }

  /// The built-in scorer model: `scorer/abuse.wnsc` beside the built-in global directory
  /// (`wordlists/scorer`, or `<prefix>/share/winnow/scorer`).
  static func scorerFile() -> String? {
    guard let global = builtInDirectory() else { return nil }
    let model = URL(fileURLWithPath: global).deletingLastPathComponent().appendingPathComponent("scorer/abuse.wnsc")
      .path
    return FileManager.default.fileExists(atPath: model) ? model : nil
  }

  private static func executablePath() -> String {
    if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return link }
    return CommandLine.arguments[0]
  }

  private static func isDirectory(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
  }
}
