import Foundation

/// Where a PostgreSQL store is: `postgres://USER@HOST[:PORT]/DB` (or `postgresql://`), or over
/// a Unix socket, `postgres://USER@/DB?host=/var/run/postgresql` (the socket's directory, as
/// libpq names it; the port names the socket file, `.s.PGSQL.PORT`). The password is never
/// part of the URL: it comes from `PGPASSWORD` or a file of mode 0600.
public struct StoreLocation: Sendable, Hashable, CustomStringConvertible {
  /// The database user.
  public var user: String
  /// The host, for TCP; nil for a Unix socket.
  public var host: String?
  /// The port (5432 by default); for a socket, the number in its file name.
  public var port: Int
  /// The socket's directory, for a Unix socket.
  public var socketDirectory: String?
  /// The database.
  public var database: String

  /// The socket file, for a Unix socket.
  public var socketPath: String? {
    socketDirectory.map { ($0 as NSString).appendingPathComponent(".s.PGSQL.\(port)") }
  }

  /// The URL, as it was given (without a password, which it never has).
  public var description: String {
    if let socketDirectory { return "postgres://\(user)@/\(database)?host=\(socketDirectory)" }
    return "postgres://\(user)@\(host ?? "")\(port == 5432 ? "" : ":\(port)")/\(database)"
  }

  /// Reads a store URL; the error says what is wrong with it.
  public init(url text: String) throws(StoreError) {
    let usage = "a store is postgres://USER@HOST[:PORT]/DB or postgres://USER@/DB?host=SOCKETDIR"
    var rest = Substring(text)
    guard let scheme = ["postgres://", "postgresql://"].first(where: { rest.hasPrefix($0) }) else {
      throw StoreError("\(text): \(usage)")
    }
    rest = rest.dropFirst(scheme.count)
    var query: [String: String] = [:]
    if let mark = rest.firstIndex(of: "?") {
      for pair in rest[rest.index(after: mark)...].split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        query[String(parts[0])] = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
      }
      rest = rest[..<mark]
    }
    guard let at = rest.firstIndex(of: "@") else { throw StoreError("\(text): no user (\(usage))") }
    let userPart = rest[..<at]
    if userPart.contains(":") {
      throw StoreError("\(text): a password is never written in the URL; set PGPASSWORD or use --password-file")
    }
    guard !userPart.isEmpty, let user = String(userPart).removingPercentEncoding else {
      throw StoreError("\(text): no user (\(usage))")
    }
    rest = rest[rest.index(after: at)...]
    guard let slash = rest.firstIndex(of: "/") else { throw StoreError("\(text): no database (\(usage))") }
    let hostPort = rest[..<slash]
    let database = String(rest[rest.index(after: slash)...])
    guard !database.isEmpty, !database.contains("/") else { throw StoreError("\(text): no database (\(usage))") }
    self.user = user
    self.database = database
    port = 5432
    if let portText = query["port"] {
      guard let value = Int(portText), (1...65535).contains(value) else { throw StoreError("\(text): bad port") }
      port = value
    }
    var hostText = String(hostPort)
    if let colon = hostText.lastIndex(of: ":"), !hostText.hasSuffix("]") {
      guard let value = Int(hostText[hostText.index(after: colon)...]), (1...65535).contains(value) else {
        throw StoreError("\(text): bad port")
      }
      port = value
      hostText = String(hostText[..<colon])
    }
    if let socket = query["host"], socket.hasPrefix("/") {
      guard hostText.isEmpty else { throw StoreError("\(text): a host and a socket directory both") }
      socketDirectory = socket
      host = nil
    } else {
      guard !hostText.isEmpty else { throw StoreError("\(text): no host (\(usage))") }
      host = hostText.hasPrefix("[") ? String(hostText.dropFirst().dropLast()) : hostText
      socketDirectory = nil
    }
  }
}

/// A store that cannot be reached, read or written; the description names the cause.
public struct StoreError: Error, Sendable, CustomStringConvertible {
  /// What failed, and why.
  public var description: String
  /// Whether the store could not be reached (rather than refusing what was asked).
  public var isUnavailable: Bool

  /// An error saying `description`.
  public init(_ description: String, isUnavailable: Bool = false) {
    self.description = description
    self.isUnavailable = isUnavailable
  }
}
