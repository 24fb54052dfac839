import Foundation

/// One change of an app's list, as the audit log keeps it.
@_spi(Tools) public struct ListChange: Sendable, Hashable {
  /// The change's id: increasing by one across all apps of the directory, in the order the
  /// changes were made.
  public var id: Int64
  /// The app whose list changed.
  public var app: String
  /// `add` (a new word), `update` (a word's replacement changed) or `delete`.
  public var op: String
  /// The word.
  public var word: String
  /// The replacement after the change; nil for a block word or a deletion.
  public var replaceWord: String?
  /// When, Unix milliseconds.
  public var time: Int64
  /// Who made it: the replica, the caller's address and request id.
  public var origin: ChangeOrigin

  /// The change as one JSON object: `id, app, op, word, replaceWord, time` (ISO 8601),
  /// `replica`, `address`, `requestId`.
  public var json: JSONValue {
    var members: [JSONMember] = [
      JSONMember(key: "id", value: .number(String(id))),
      JSONMember(key: "app", value: .string(app)),
      JSONMember(key: "op", value: .string(op)),
      JSONMember(key: "word", value: .string(word)),
      JSONMember(key: "replaceWord", value: replaceWord.map { .string($0) } ?? .null),
      JSONMember(key: "time", value: .string(ChangeLog.isoTime(milliseconds: time))),
      JSONMember(key: "replica", value: .string(origin.replica)),
    ]
    if let address = origin.address { members.append(JSONMember(key: "address", value: .string(address))) }
    if let requestId = origin.requestId { members.append(JSONMember(key: "requestId", value: .string(requestId))) }
    return .object(members)
  }

  /// Reads a change as ``json`` writes it; nil for anything else.
  init?(json value: JSONValue) {
    guard let id = value["id"]?.int64Value, let app = value["app"]?.stringValue, let op = value["op"]?.stringValue,
      let word = value["word"]?.stringValue, let timeText = value["time"]?.stringValue,
      let time = ChangeLog.milliseconds(isoTime: timeText), let replica = value["replica"]?.stringValue
    else { return nil }
    self.id = id
    self.app = app
    self.op = op
    self.word = word
    self.replaceWord = value["replaceWord"]?.stringValue
    self.time = time
    self.origin = ChangeOrigin(
      replica: replica, address: value["address"]?.stringValue, requestId: value["requestId"]?.stringValue)
  }

  /// A change of these parts.
  public init(
    id: Int64, app: String, op: String, word: String, replaceWord: String?, time: Int64, origin: ChangeOrigin
  ) {
    self.id = id
    self.app = app
    self.op = op
    self.word = word
    self.replaceWord = replaceWord
    self.time = time
    self.origin = origin
  }
}

/// Who makes a change: the replica (a server's name, by default its host name and process id),
/// and for a request, the caller's address and request id.
@_spi(Tools) public struct ChangeOrigin: Sendable, Hashable {
  /// The replica that made the change.
  public var replica: String
  /// The caller's address, for a change made by a request.
  public var address: String?
  /// The request's id (`X-Request-Id`, or one the server made).
  public var requestId: String?

  /// An origin of these parts.
  public init(replica: String = ChangeOrigin.defaultReplica, address: String? = nil, requestId: String? = nil) {
    self.replica = replica
    self.address = address
    self.requestId = requestId
  }

  /// This process: `HOST:PID`.
  public static var defaultReplica: String {
    "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
  }
}

/// The audit log of an app directory: `changes.jsonl` beside the lists, one ``ListChange`` a
/// line, appended (and synchronized to disk) under the directory's edit lock after the list
/// file is written, so its ids follow the order of the changes across every process that edits
/// the directory.
@_spi(Tools) public enum ChangeLog {
  /// The log's file name in the app directory.
  public static let fileName = "changes.jsonl"

  /// A change not yet numbered.
  public struct Pending: Sendable, Hashable {
    /// The app.
    public var app: String
    /// `add`, `update` or `delete`.
    public var op: String
    /// The word.
    public var word: String
    /// The replacement after the change.
    public var replaceWord: String?

    /// A change of these parts.
    public init(app: String, op: String, word: String, replaceWord: String? = nil) {
      self.app = app
      self.op = op
      self.word = word
      self.replaceWord = replaceWord
    }
  }

  /// Appends `changes` to the log of `directory`; the caller holds the directory's lock. A line
  /// left torn by a crash is cut off first.
  static func append(_ changes: [Pending], origin: ChangeOrigin, to directory: String) throws(AppDirectoryError) {
    guard !changes.isEmpty else { return }
    let path = (directory as NSString).appendingPathComponent(fileName)
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
    guard descriptor >= 0 else {
      throw AppDirectoryError(file: path, cause: "cannot open: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    let (lastID, end) = lastComplete(descriptor)
    if ftruncate(descriptor, off_t(end)) != 0 {
      throw AppDirectoryError(file: path, cause: "cannot cut a torn line: \(String(cString: strerror(errno)))")
    }
    let time = Int64((Date().timeIntervalSince1970 * 1000).rounded())
    var bytes: [UInt8] = []
    var id = lastID
    for change in changes {
      id += 1
      let entry = ListChange(
        id: id, app: change.app, op: change.op, word: change.word, replaceWord: change.replaceWord, time: time,
        origin: origin)
      entry.json.write(to: &bytes)
      bytes.append(0x0A)
    }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        pwrite(descriptor, raw.baseAddress?.advanced(by: written), raw.count - written, off_t(end + written))
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let cause = String(cString: strerror(errno))
        _ = ftruncate(descriptor, off_t(end))
        throw AppDirectoryError(file: path, cause: "cannot write: \(cause)")
      }
      written += count
    }
    guard fsync(descriptor) == 0 else {
      throw AppDirectoryError(file: path, cause: "cannot synchronize: \(String(cString: strerror(errno)))")
    }
  }

  /// The id of the last whole line, and the offset where it ends (0 and 0 for an empty log).
  private static func lastComplete(_ descriptor: Int32) -> (Int64, Int) {
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return (0, 0) }
    let size = Int(status.st_size)
    // Back from the end, a block at a time, until a whole line with an id is found.
    var blockEnd = size
    var tail: [UInt8] = []
    while blockEnd > 0 {
      let start = max(0, blockEnd - 65_536)
      var block = [UInt8](repeating: 0, count: blockEnd - start)
      let read = block.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
      guard read == block.count else { return (0, 0) }
      tail = block + tail
      blockEnd = start
      // The whole lines of the tail: up to its last newline.
      guard let lastNewline = tail.lastIndex(of: 0x0A) else { continue }
      let end = start + lastNewline + 1
      var lineEnd = lastNewline
      while lineEnd > 0 {
        let lineStart = (tail[..<lineEnd].lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0
        if lineStart == 0 && start > 0 { break }  // the line may begin in an earlier block
        if let value = try? JSONValue(parsingUTF8: tail[lineStart..<lineEnd]), let id = value["id"]?.int64Value {
          return (id, end)
        }
        guard lineStart > 0 else { break }
        lineEnd = lineStart - 1
      }
      if start == 0 { return (0, end) }
    }
    return (0, 0)
  }

  /// The changes of `directory`'s log, oldest first: of `app` (all when nil), with an id over
  /// `since` and a time at or after `after` (Unix milliseconds). No log: none.
  public static func read(directory: String, app: String? = nil, since: Int64 = 0, after: Int64 = .min)
    throws(AppDirectoryError) -> [ListChange]
  {
    let path = (directory as NSString).appendingPathComponent(fileName)
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw AppDirectoryError(file: path, cause: "cannot read")
    }
    var changes: [ListChange] = []
    for line in data.split(separator: 0x0A) {
      // A torn last line (a crash mid-append) is not a change.
      guard let value = try? JSONValue(parsingUTF8: line), let change = ListChange(json: value) else { continue }
      if let app, change.app != app { continue }
      guard change.id > since, change.time >= after else { continue }
      changes.append(change)
    }
    return changes
  }

  /// `2026-11-29T07:00:00.123Z`.
  static func isoTime(milliseconds: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }

  /// The Unix milliseconds of an ISO 8601 time (with or without fractional seconds); nil
  /// for anything else.
  public static func milliseconds(isoTime text: String) -> Int64? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) ?? plain.date(from: text) else { return nil }
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    guard milliseconds.isFinite, abs(milliseconds) < 9e15 else { return nil }
    return Int64(milliseconds)
  }
}
