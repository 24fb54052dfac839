import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow match`: the raw multi-pattern matcher, for tests and comparison with other matchers.
struct MatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "match",
    abstract: "Find patterns in standard input with the raw Aho-Corasick matcher.",
    discussion: """
      The haystack is standard input as raw bytes, nothing stripped. Without --normalize, \
      patterns match exactly, as Rust's aho-corasick and Hyperscan would match them. \
      Each match is printed as PATTERN<TAB>START<TAB>END (half-open offsets), or with --json as \
      {"pattern":0,"start":0,"end":4}, where PATTERN is the index in the patterns file. \
      Exit status, as for every command: 0 when nothing matched, 1 when something did.
      """
  )

  @Option(name: .customLong("patterns"), help: "Read the patterns from this file.")
  var patternsFile: String

  @Option(
    name: .customLong("patterns-format"), help: "How the patterns file is written: json (an array of strings) or lines."
  )
  var patternsFormat: PatternsFormat = .json

  @Option(help: "Which matches to report when they overlap: standard, leftmost-first or leftmost-longest.")
  var semantics: MatchKind = .standard

  @Flag(help: "Report every match, overlapping ones included (standard semantics only).")
  var overlapping = false

  @Option(help: "Report offsets in UTF-8 bytes or in Unicode scalars (chars).")
  var offsets: MatchOffsets = .bytes

  @Flag(help: "Normalize patterns and haystack with Winnow's default rules; offsets stay on the original bytes.")
  var normalize = false

  @Flag(help: "Print one JSON object per match.")
  var json = false

  @Flag(
    help: "Print {\"patterns\",\"build_seconds\",\"scan_seconds\",\"bytes\",\"matches\"} as JSON on standard error.")
  var stats = false

  enum PatternsFormat: String, ExpressibleByArgument, CaseIterable {
    case json, lines
  }

  @Flag(help: "Print only the number of matches, not each match.")
  var count = false

  @Flag(
    name: .customLong("per-line"),
    help:
      "Match each line of standard input as its own haystack, as a server checks one message at a time (needs --count)."
  )
  var perLine = false

  @Flag(
    name: .customLong("filter-counts"),
    help: ArgumentHelp(
      "With --stats: also count what the raw scan's start filter does, stage by stage (an extra, untimed pass).",
      discussion:
        "Adds \"filter\": {positions, lead_bytes, passed_prefix, passed_windows, window_probes, reported, walks} to the --stats object."
    ))
  var filterCounts = false

  @Flag(
    name: .customLong("normalize-only"),
    help: ArgumentHelp(
      "With --normalize --per-line: normalize each line as a scan does, and match nothing.",
      discussion:
        "Prints the number of texts normalized (a line once per rule set; a line none of whose characters can become a pattern's is not normalized); --stats times it as it times a scan."
    ))
  var normalizeOnly = false

  func validate() throws {
    if normalizeOnly && (!normalize || !perLine) {
      throw ValidationError("--normalize-only needs --normalize and --per-line")
    }
    if filterCounts && (!stats || normalize) {
      throw ValidationError("--filter-counts needs --stats, without --normalize")
    }
    if perLine && !count { throw ValidationError("--per-line needs --count") }
    if overlapping && semantics != .standard {
      throw ValidationError("--overlapping works with --semantics standard only, not \(semantics.rawValue)")
    }
  }

  func run() throws {
    let patterns = try readPatterns()
    let haystack = readStandardInput()
    if perLine { return try runPerLine(patterns: patterns, haystack: haystack) }
    let clock = ContinuousClock()
    var matches: [PatternMatch] = []
    var countedMatches: Int? = nil
    var buildTime = Duration.zero
    var scanTime = Duration.zero
    if normalize {
      let matcher = try timed(&buildTime) { try normalizingMatcher(patterns) }
      let text = String(decoding: haystack, as: UTF8.self)
      let scanStart = clock.now
      let found = overlapping ? matcher.overlappingMatches(in: text) : matcher.matches(in: text, kind: semantics)
      scanTime = clock.now - scanStart
      let scalarOffsets = offsets == .scalars ? Self.scalarOffsets(of: haystack) : []
      matches = found.map { match in
        let pattern = PatternID(match.entry.source!.line - 1)
        if offsets == .scalars {
          return PatternMatch(
            pattern: pattern, start: scalarOffsets[match.range.lowerBound], end: scalarOffsets[match.range.upperBound])
        }
        return PatternMatch(pattern: pattern, start: match.range.lowerBound, end: match.range.upperBound)
      }
    } else {
      let automaton = try timed(&buildTime) { try rawAutomaton(patterns) }
      let scanStart = clock.now
      haystack.withUnsafeBytes { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        if count && overlapping {
          countedMatches = automaton.countOverlappingMatches(inUTF8: bytes)  // nothing stored
        } else {
          matches =
            overlapping
            ? automaton.overlappingMatches(inUTF8: bytes, offsets: offsets)
            : automaton.matches(inUTF8: bytes, kind: semantics, offsets: offsets)
        }
      }
      scanTime = clock.now - scanStart
    }
    let matchCount = countedMatches ?? matches.count
    var output = OutputBuffer()
    if count { output.write("\(matchCount)\n") }
    for match in matches where !count {
      output.write(
        json
          ? "{\"pattern\":\(match.pattern),\"start\":\(match.start),\"end\":\(match.end)}\n"
          : "\(match.pattern)\t\(match.start)\t\(match.end)\n")
    }
    output.flush()
    if stats {
      printStats(
        patterns: patterns.count, build: buildTime, scan: scanTime, bytes: haystack.count, matches: matchCount,
        filter: try filterStageCounts(patterns, haystack, perLine: false))
    }
    // As every winnow command: 1 when something matched, 0 when nothing did.
    if matchCount > 0 { throw ExitCode(1) }
  }

  /// `--per-line --count`: each line a haystack; scan time covers finding the lines (with
  /// memchr, as the Hyperscan driver of `Benchmarks/compare` finds them) and matching them, not
  /// building the matcher or, with --normalize, decoding each line into a `String`.
  private func runPerLine(patterns: [String], haystack: Data) throws {
    let clock = ContinuousClock()
    var total = 0
    var messages = 0
    var buildTime = Duration.zero
    var scanTime = Duration.zero
    // Options read once: each read of an argument-parser property looks up generic metadata,
    // which read per line was a twentieth of the scan.
    let (overlapping, semantics) = (overlapping, semantics)
    if normalize {
      let matcher = try timed(&buildTime) { try normalizingMatcher(patterns) }
      var texts: [String] = []
      haystack.withUnsafeBytes { raw in
        Self.forEachLine(in: raw.bindMemory(to: UInt8.self)) { texts.append(String(decoding: $0, as: UTF8.self)) }
      }
      messages = texts.count
      let scanStart = clock.now
      if normalizeOnly {
        for text in texts { total += matcher.normalizeAsScanned(text) }
      } else {
        for text in texts {
          total +=
            overlapping ? matcher.overlappingMatches(in: text).count : matcher.matches(in: text, kind: semantics).count
        }
      }
      scanTime = clock.now - scanStart
    } else {
      let automaton = try timed(&buildTime) { try rawAutomaton(patterns) }
      let scanStart = clock.now
      haystack.withUnsafeBytes { raw in
        Self.forEachLine(in: raw.bindMemory(to: UInt8.self)) { line in
          messages += 1
          total +=
            overlapping
            ? automaton.countOverlappingMatches(inUTF8: line) : automaton.matches(inUTF8: line, kind: semantics).count
        }
      }
      scanTime = clock.now - scanStart
    }
    var output = OutputBuffer()
    output.write("\(total)\n")
    output.flush()
    if stats {
      printStats(
        patterns: patterns.count, build: buildTime, scan: scanTime, bytes: haystack.count, matches: total,
        messages: messages, filter: try filterStageCounts(patterns, haystack, perLine: true))
    }
    if total > 0 && !normalizeOnly { throw ExitCode(1) }
  }

  /// Calls `body` with each non-empty line of `bytes` (without its newline), found with memchr.
  private static func forEachLine(
    in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    guard let base = bytes.baseAddress else { return }
    var lineStart = 0
    while lineStart < bytes.count {
      let newline = memchr(base + lineStart, Int32(UInt8(ascii: "\n")), bytes.count - lineStart)
      let end = newline.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? bytes.count
      if end > lineStart { body(UnsafeBufferPointer(start: base + lineStart, count: end - lineStart)) }
      lineStart = end + 1
    }
  }

  /// Runs `body`, adding the time it took to `duration`.
  private func timed<T>(_ duration: inout Duration, _ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock()
    let start = clock.now
    defer { duration += clock.now - start }
    return try body()
  }

  private func rawAutomaton(_ patterns: [String]) throws -> AhoCorasick {
    do { return try AhoCorasick(patterns: patterns) } catch { throw ValidationError(error.description) }
  }

  /// With --filter-counts, the raw automaton's filter stages over the haystack (each line on its
  /// own with `perLine`), counted apart from the timed scan.
  private func filterStageCounts(_ patterns: [String], _ haystack: Data, perLine: Bool) throws -> FilterStageCounts? {
    guard filterCounts else { return nil }
    let automaton = try rawAutomaton(patterns)
    var counts = FilterStageCounts()
    var filtered = true
    haystack.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      if perLine {
        Self.forEachLine(in: bytes) { filtered = automaton.countFilterStages(inUTF8: $0, into: &counts) && filtered }
      } else {
        filtered = automaton.countFilterStages(inUTF8: bytes, into: &counts)
      }
    }
    return filtered ? counts : nil
  }

  /// The `--stats` object on standard error.
  private func printStats(
    patterns: Int, build: Duration, scan: Duration, bytes: Int, matches: Int, messages: Int? = nil,
    filter: FilterStageCounts? = nil
  ) {
    var errors = OutputBuffer(.standardError)
    let perLine = messages.map { "\"messages\":\($0)," } ?? ""
    let stages =
      filter.map { counts in
        ",\"filter\":{\"positions\":\(counts.positions),\"lead_bytes\":\(counts.leadBytes),"
          + "\"passed_prefix\":\(counts.passedPrefix),\"passed_windows\":\(counts.passedWindows),"
          + "\"window_probes\":\(counts.windowProbes),\"reported\":\(counts.reported),\"walks\":\(counts.walks)}"
      } ?? ""
    errors.write(
      "{\"patterns\":\(patterns),\"build_seconds\":\(build.seconds),\"scan_seconds\":\(scan.seconds),"
        + "\"bytes\":\(bytes),\(perLine)\"matches\":\(matches)\(stages)}\n")
  }

  private func readPatterns() throws -> [String] {
    // A FileHandle, not FileManager.contents: it also reads pipes (`--patterns <(…)`).
    let data: Data
    do { data = try readWholeFile(patternsFile) } catch { throw ValidationError("patterns file: \(error)") }
    let patterns: [String]
    switch patternsFormat {
    case .json:
      guard let decoded = try? JSONDecoder().decode([String].self, from: data) else {
        throw ValidationError("\(patternsFile): not a JSON array of strings")
      }
      patterns = decoded
    case .lines:
      guard let text = String(validating: data, as: UTF8.self) else {
        throw ValidationError("\(patternsFile): not valid UTF-8")
      }
      // Scalars, not Characters: "\r\n" is one Character. A CRLF file's "\r" is dropped.
      var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map {
        String(String.UnicodeScalarView($0)).trimmingSuffix("\r")
      }
      if lines.last == "" { lines.removeLast() }
      patterns = lines
    }
    if let empty = patterns.firstIndex(where: \.isEmpty) {
      let place = patternsFormat == .lines ? "\(patternsFile):\(empty + 1)" : "\(patternsFile): pattern \(empty)"
      throw ValidationError("\(place) is empty; every pattern needs at least one character")
    }
    return patterns
  }

  /// A matcher whose entry `i` is pattern `i`, matched as a substring after normalization.
  private func normalizingMatcher(_ patterns: [String]) throws -> Matcher {
    let entries = patterns.enumerated().map { index, pattern in
      Entry(text: pattern, boundary: .substring, source: SourceLocation(file: patternsFile, line: index + 1))
    }
    do {
      return try Matcher(lists: [WordList(name: patternsFile, origin: .custom, entries: entries)])
    } catch {
      throw ValidationError(error.description)
    }
  }

  /// For each byte offset, the number of scalars before it (a UTF-8 continuation byte counts
  /// for the scalar it belongs to).
  private static func scalarOffsets(of bytes: Data) -> [Int] {
    var offsets: [Int] = []
    offsets.reserveCapacity(bytes.count + 1)
    var scalars = 0
    for byte in bytes {
      offsets.append(scalars)
      if byte & 0xC0 != 0x80 { scalars += 1 }
    }
    offsets.append(scalars)
    return offsets
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast()) : self }
}

extension MatchKind: ExpressibleByArgument {}
extension MatchOffsets: ExpressibleByArgument {}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
