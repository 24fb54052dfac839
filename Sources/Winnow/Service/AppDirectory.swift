import Foundation

/// Per-app custom lists in one directory, the layout `winnow serve` (and `scan --apps`,
/// `check --apps`) reads: `DIR/APPKEY.txt` holds app `APPKEY`'s custom list (the list format of
/// ``WordListFile``), and `DIR/secrets.json` the apps' secrets, `{"APPKEY":"SECRET",…}`.
///
/// An app key is letters, digits, `-` and `_` (at most 64), so a key can never name a file
/// outside the directory. The secrets file is checked as `ssh` checks a private key (see
/// ``secrets()``): a regular file of this user, mode 0600 or stricter, in a directory no one
/// else can write.
public struct AppDirectory: Sendable, Hashable {
  /// The directory.
  public let path: String

  /// The directory at `path` (not read until asked).
  public init(path: String) { self.path = path }

  /// The most bytes of an app key.
  public static let maximumAppKeyLength = 64

  /// Whether `appKey` can name an app: 1 to 64 letters, digits, `-` and `_` of ASCII.
  public static func isValidAppKey(_ appKey: Substring) -> Bool {
    !appKey.isEmpty && appKey.utf8.count <= maximumAppKeyLength
      && appKey.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
      }
  }

  /// The list file of an app.
  public func listPath(of appKey: String) -> String { path + "/" + appKey + ".txt" }

  /// The app keys that have a list file, sorted. Files whose name is not a valid app key are
  /// left out.
  /// - Throws: ``AppDirectoryError`` when the directory cannot be read.
  @_spi(Tools) public func appKeys() throws(AppDirectoryError) -> [String] {
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
      throw AppDirectoryError(file: path, cause: "not a readable directory")
    }
    return names.compactMap { name -> String? in
      guard name.hasSuffix(".txt") else { return nil }
      let key = name.dropLast(4)
      return Self.isValidAppKey(key) ? String(key) : nil
    }.sorted()
  }

  /// The apps' secrets from `secrets.json`; empty when there is no such file.
  ///
  /// Checked as `ssh` checks a private key and its directory: the directory must be owned by
  /// this user (or root) and not writable by group or others (whoever can write it can put
  /// their own secrets there), and the file must be a regular file, not a symbolic link, owned
  /// by this user (or root), and neither readable nor writable by group or others.
  /// - Throws: ``AppDirectoryError`` naming the cause when a check fails, the file cannot be
  ///   read, is not a JSON object of strings, or names an invalid app key.
  @_spi(Tools) public func secrets() throws(AppDirectoryError) -> [String: String] {
    try Self.secrets(file: path + "/secrets.json")
  }

  /// The secrets of a secrets file anywhere (`winnow serve --secrets FILE`), checked as
  /// ``secrets()`` checks `secrets.json` and its directory; empty when there is no such file.
  @_spi(Tools) public static func secrets(file: String) throws(AppDirectoryError) -> [String: String] {
    let directory = (file as NSString).deletingLastPathComponent
    let path = directory.isEmpty ? "." : directory
    var status = stat()
    guard stat(path, &status) == 0 else { throw AppDirectoryError(file: path, cause: String(cString: strerror(errno))) }
    if let problem = ownershipProblem(status, kind: "directory") {
      throw AppDirectoryError(file: path, cause: problem)
    }
    if status.st_mode & 0o022 != 0 {
      throw AppDirectoryError(
        file: path,
        cause:
          "holds secrets.json but is writable by group or others (mode \(String(status.st_mode & 0o777, radix: 8))); chmod go-w it"
      )
    }
    // Opened without following a link, then checked on the descriptor: what is checked is
    // what is read.
    let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      if errno == ENOENT { return [:] }
      if errno == ELOOP { throw AppDirectoryError(file: file, cause: "is a symbolic link; make it a regular file") }
      throw AppDirectoryError(file: file, cause: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    guard fstat(descriptor, &status) == 0 else {
      throw AppDirectoryError(file: file, cause: String(cString: strerror(errno)))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw AppDirectoryError(file: file, cause: "is not a regular file")
    }
    if let problem = ownershipProblem(status, kind: "file") { throw AppDirectoryError(file: file, cause: problem) }
    if status.st_mode & 0o077 != 0 {
      throw AppDirectoryError(
        file: file,
        cause: "is open to group or others (mode \(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
    }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw AppDirectoryError(file: file, cause: "cannot be read: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      data += buffer[..<count]
      guard data.count <= 16 << 20 else { throw AppDirectoryError(file: file, cause: "is over 16 MiB") }
    }
    let value: JSONValue
    do { value = try JSONValue(parsing: String(decoding: data, as: UTF8.self)) } catch {
      throw AppDirectoryError(file: file, cause: "not JSON: \(error)")
    }
    guard case .object(let members) = value else {
      throw AppDirectoryError(file: file, cause: "expected an object {\"APPKEY\":\"SECRET\",…}")
    }
    var secrets: [String: String] = [:]
    for member in members {
      guard isValidAppKey(member.key[...]) else {
        throw AppDirectoryError(
          file: file, cause: "\(JSONValue.string(member.key).jsonString) is not an app key (letters, digits, - and _)")
      }
      guard case .string(let secret) = member.value, !secret.isEmpty else {
        throw AppDirectoryError(file: file, cause: "the secret of \(member.key) is not a non-empty string")
      }
      secrets[member.key] = secret
    }
    return secrets
  }

  /// Why a file or directory holding secrets is not to be trusted for its owner, or nil: it
  /// must be owned by the user this process runs as, or by root.
  private static func ownershipProblem(_ status: stat, kind: String) -> String? {
    let user = geteuid()
    guard status.st_uid != user && status.st_uid != 0 else { return nil }
    return "the \(kind) is owned by user \(status.st_uid), not by this user (\(user)) or root; chown it"
  }
}

/// A problem with an app directory or one of its files.
@_spi(Tools) public struct AppDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file or directory.
  public let file: String
  /// What is wrong, lower case.
  public let cause: String

  /// Creates an error.
  public init(file: String, cause: String) {
    self.file = file
    self.cause = cause
  }

  /// `file: cause`.
  public var description: String { "\(file): \(cause)" }
}

/// Writes all of `bytes` to `descriptor`, again after an interrupted or partial write; false
/// when the system refuses (a full disk, a closed pipe), with `errno` saying why.
package func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
  bytes.withUnsafeBytes { buffer in
    guard let base = buffer.baseAddress else { return true }
    var written = 0
    while written < buffer.count {
      let count = Foundation.write(descriptor, base + written, buffer.count - written)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      written += count
    }
    return true
  }
}
