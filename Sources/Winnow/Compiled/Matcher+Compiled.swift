/// The compiled form of a matcher: what a build computed (automata, start filters, per-pattern
/// checks, the normalized lexicon, the entries with their sources), written out so that the
/// next process reads it back instead of parsing, normalizing and laying out every list again.
/// `winnow` keeps one per set of global-list directories (see ``CompiledListCache``).
///
/// The format belongs to one build of Winnow: integers are in the host's byte order, and the
/// caller's *identity* (in `winnow`, the list files' contents and the executable's size and
/// time) is written in the header and must match on reading. A checksum over the whole file
/// (its last eight bytes) catches a file cut short, garbled or spliced from two; it is not a
/// defence against a forged file, so the compiled form must come from a directory only its
/// user writes. Every index a table holds is checked as it is read back (see
/// ``AutomatonLayout/isConsistent(alphabet:patternLengths:patternByteLengths:)``), so that even
/// a forged file is an error, never a read out of bounds. Regexes are compiled again
/// from their text (PCRE2's code is not written out); a layer's fold table is written with
/// it and shared, as a built one is, by every normalizer of its rules.
extension Matcher {
  /// The file's first eight bytes.
  static let compiledMagic: [UInt8] = Array("WNWMATCH".utf8)
  /// Bumped whenever what is written changes.
  static let compiledFormatVersion: UInt64 = 20
  /// Written as the host lays it out: read back as itself only in the same byte order.
  private static let byteOrderMark: UInt64 = 0x0102_0304_0506_0708

  /// The compiled form of this matcher, tagged with `identity` (see the extension's doc).
  package func compiledBytes(identity: [UInt8]) -> [UInt8] {
    var payload = CompiledWriter()
    payload.write(layers.count)
    for layer in layers { layer.encode(into: &payload) }
    let body = payload.finished()
    var header = CompiledWriter()
    header.write(Self.compiledFormatVersion)
    withUnsafeBytes(of: Self.byteOrderMark) { header.write([UInt8]($0)) }
    header.write(identity)
    header.write(body.count)
    var bytes = Self.compiledMagic + header.bytes + body
    let checksum = bytes.withUnsafeBytes { CompiledChecksum.of($0) }
    withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// Reads back a matcher that ``compiledBytes(identity:)`` wrote with the same `identity`.
  /// - Throws: ``CompiledMatcherError`` when the bytes are not a compiled matcher of this format
  ///   and byte order, carry another identity, fail the checksum, or do not describe a matcher.
  package convenience init(compiledBytes bytes: UnsafeRawBufferPointer, identity: [UInt8])
    throws(CompiledMatcherError)
  {
    let magic = Self.compiledMagic.count
    guard bytes.count > magic + 8, bytes.prefix(magic).elementsEqual(Self.compiledMagic) else {
      throw CompiledMatcherError(.notCompiledMatcher)
    }
    let checked = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])
    // The header is read (every count checked against the bytes left) only to learn whether
    // the size is right; nothing of it is used before the checksum has seen the whole file.
    var header = CompiledReader(headerOf: UnsafeRawBufferPointer(rebasing: checked[magic...]))
    let version = try header.readUInt64()
    let byteOrder: [UInt8] = try header.readArray()
    guard version == Self.compiledFormatVersion,
      withUnsafeBytes(of: Self.byteOrderMark, { byteOrder.elementsEqual($0) })
    else { throw CompiledMatcherError(.notCompiledMatcher) }
    let writtenIdentity = try header.readArray(of: UInt8.self)
    let length = try header.readInt()
    let start = magic + header.offset
    guard checked.count - start == length else { throw CompiledMatcherError(.checksum) }
    let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    guard CompiledChecksum.of(checked) == stored else { throw CompiledMatcherError(.checksum) }
    guard writtenIdentity == identity else { throw CompiledMatcherError(.otherIdentity) }
    var reader = try CompiledReader(UnsafeRawBufferPointer(rebasing: checked[start...]))
    let count = try reader.readCount(limit: 1 << 16)
    var layers: [MatcherLayer] = []
    for _ in 0..<count { layers.append(try MatcherLayer(decoding: &reader)) }
    guard reader.isAtEnd else { throw CompiledMatcherError(.malformed("bytes after the last layer")) }
    self.init(layers: layers)
  }
}

extension MatcherLayer {
  func encode(into writer: inout CompiledWriter) {
    writer.write(Int(normalizer.rules.rawValue))
    FoldTable.shared(for: normalizer.rules).encode(into: &writer)
    encodeEntries(into: &writer)
    writer.write(automaton != nil)
    automaton?.encode(into: &writer)
    writer.write(patternEntries)
    writer.write(patternChecks)
    writer.write(patternRuns.map { UInt32($0.count) })
    writer.write(patternRuns.flatMap { $0 })
    var lexiconIndices: [UInt32] = []
    for word in lexiconWords.strings { lexiconIndices.append(writer.add(word)) }
    writer.write(lexiconIndices)
    let lexiconPairs = lexicon.pairs
    writer.write(lexiconPairs.map(\.key))
    writer.write(lexiconPairs.map(\.weight))
    writer.write(regexes.map { Int64($0.entry) })
    writer.write(regexes.map { UInt8($0.prefiltered ? 1 : 0) })
    writer.write(skipsInsideWords)
  }

  /// Reads a layer back: its automaton and tables as written, its regexes compiled again from
  /// their entries' text.
  convenience init(decoding reader: inout CompiledReader) throws(CompiledMatcherError) {
    let rules = Normalization(rawValue: UInt16(truncatingIfNeeded: try reader.readInt()))
    try FoldTable.shareDecoded(from: &reader, for: rules)
    let (entries, listRuns) = try Self.decodeEntries(from: &reader)
    let automaton = try reader.readBool() ? try AhoCorasick(decoding: &reader) : nil
    let patternEntries: [Int32] = try reader.readArray()
    let patternChecks: [UInt8] = try reader.readArray()
    let runCounts: [UInt32] = try reader.readArray()
    let allRuns: [UInt16] = try reader.readArray()
    let patterns = automaton?.patternCount ?? 0
    guard patternEntries.count == patterns, patternChecks.count == patterns, runCounts.count == patterns,
      patternEntries.allSatisfy({ Int($0) < entries.count })
    else { throw CompiledMatcherError(.malformed("pattern tables")) }
    var patternRuns: [[UInt16]] = []
    patternRuns.reserveCapacity(patterns)
    var start = 0
    for count in runCounts {
      guard start + Int(count) <= allRuns.count else { throw CompiledMatcherError(.malformed("repeat counts")) }
      patternRuns.append(count == 0 ? [] : Array(allRuns[start..<start + Int(count)]))
      start += Int(count)
    }
    let lexiconWords = try reader.lexiconWords(at: try reader.readArray(of: UInt32.self))
    let lexiconKeys = try reader.readArray(of: UInt64.self)
    let lexiconWeights = try reader.readArray(of: UInt8.self)
    guard lexiconKeys.count == lexiconWeights.count else { throw CompiledMatcherError(.malformed("lexicon")) }
    // Uniquing, not trusting: a forged file with a key twice must not trap.
    let lexicon = LexiconTable(zip(lexiconKeys, lexiconWeights))
    let regexEntries: [Int64] = try reader.readArray()
    let prefiltered: [UInt8] = try reader.readArray()
    guard prefiltered.count == regexEntries.count else { throw CompiledMatcherError(.malformed("regexes")) }
    var regexes: [(entry: Int, program: RegexProgram, prefiltered: Bool)] = []
    for (entry, filtered) in zip(regexEntries, prefiltered) {
      guard entry >= 0 && entry < entries.count, entries[Int(entry)].entry.kind != .literal else {
        throw CompiledMatcherError(.malformed("regex entry \(entry)"))
      }
      let text = entries[Int(entry)].entry.text
      guard let program = try? RegexProgram(pattern: text, caseless: rules.contains(.caseFolding)) else {
        throw CompiledMatcherError(.malformed("regex \(text) does not compile"))
      }
      regexes.append((Int(entry), program, filtered != 0))
    }
    // A negative pattern entry names a regex whose literal the pattern is.
    guard patternEntries.allSatisfy({ $0 >= 0 || Int(-$0 - 1) < regexes.count }) else {
      throw CompiledMatcherError(.malformed("regex literal of no regex"))
    }
    let skipsInsideWords = try reader.readBool()
    self.init(
      normalizer: Normalizer(rules: rules), entries: entries, listRuns: listRuns, automaton: automaton,
      patternEntries: patternEntries,
      patternChecks: patternChecks, patternRuns: patternRuns, lexiconWords: lexiconWords, lexicon: lexicon,
      regexes: regexes, skipsInsideWords: skipsInsideWords)
  }

  /// The entries as columns: one array per field, strings as table indices.
  private func encodeEntries(into writer: inout CompiledWriter) {
    let none = UInt32.max
    var texts: [UInt32] = []
    // Regex (bit 0), action (bits 1–3), boundary (bits 4–5), name (bit 6), raw regex (bits 0 and 7).
    var kinds: [UInt16] = []
    var replacements: [UInt32] = []
    var categories: [UInt32] = []
    var files: [UInt32] = []
    var lines: [Int64] = []
    var origins: [UInt8] = []
    var lists: [UInt32] = []
    var languages: [UInt32] = []
    // `Entry.alsoWordOf`, its codes joined with `+`.
    var alsoWordOf: [UInt32] = []
    for (index, compiled) in entries.enumerated() {
      let entry = compiled.entry
      texts.append(writer.add(entry.text))
      let action: UInt8
      var replacement = none
      switch entry.action {
      case .block: action = 0
      case .replace(let text):
        action = 1
        replacement = writer.index(of: text)
      case .allow: action = 2
      case .lexicon: action = 3
      case .review: action = 4
      }
      let boundary: UInt8 =
        switch entry.boundary {
        case .word: 0
        case .substring: 1
        case .dictionaryWord: 2
        }
      let kind: UInt8 = entry.kind == .literal ? 0 : entry.kind == .regex ? 1 : 1 | 1 << 7
      kinds.append(
        UInt16(kind | action << 1 | boundary << 4 | (entry.isAlsoName ? 1 << 6 : 0)) | (entry.isInsult ? 1 << 8 : 0))
      languages.append(entry.language.map { writer.index(of: $0) } ?? none)
      alsoWordOf.append(entry.alsoWordOf.isEmpty ? none : writer.index(of: entry.alsoWordOf.joined(separator: "+")))
      replacements.append(replacement)
      categories.append(entry.category.map { writer.index(of: $0) } ?? none)
      files.append(entry.source.map { writer.index(of: $0.file) } ?? none)
      lines.append(Int64(entry.source?.line ?? 0))
      origins.append(compiled.origin == .global ? 0 : 1)
      lists.append(writer.index(of: list(ofEntry: index)))
    }
    for column in [texts, replacements, categories, files, lists, languages, alsoWordOf] { writer.write(column) }
    writer.write(kinds)
    writer.write(lines)
    writer.write(origins)
  }

  private static func decodeEntries(from reader: inout CompiledReader) throws(CompiledMatcherError)
    -> (entries: [CompiledEntry], listRuns: [ListRun])
  {
    let none = UInt32.max
    let texts: [UInt32] = try reader.readArray()
    let replacements: [UInt32] = try reader.readArray()
    let categories: [UInt32] = try reader.readArray()
    let files: [UInt32] = try reader.readArray()
    let lists: [UInt32] = try reader.readArray()
    let languages: [UInt32] = try reader.readArray()
    let alsoWordOf: [UInt32] = try reader.readArray()
    let kinds: [UInt16] = try reader.readArray()
    let lines: [Int64] = try reader.readArray()
    let origins: [UInt8] = try reader.readArray()
    let count = texts.count
    guard
      [
        replacements.count, categories.count, files.count, lists.count, languages.count, alsoWordOf.count, kinds.count,
        lines.count, origins.count,
      ]
      .allSatisfy({ $0 == count })
    else { throw CompiledMatcherError(.malformed("entry columns")) }
    var entries: [CompiledEntry] = []
    var listRuns: [ListRun] = []
    entries.reserveCapacity(count)
    // Neighbouring entries share their file, and mostly their category and language: each
    // field's last string is kept, and the reader asked only when it changes.
    struct Last {
      var index = UInt32.max
      var string = ""
      mutating func string(at index: UInt32, _ reader: inout CompiledReader) throws(CompiledMatcherError) -> String {
        if index != self.index {
          string = try reader.string(at: index)
          self.index = index
        }
        return string
      }
    }
    var (lastCategory, lastFile, lastLanguage) = (Last(), Last(), Last())
    for index in 0..<count {
      let packed = kinds[index]
      let action: Entry.Action
      switch packed >> 1 & 7 {
      case 0: action = .block
      case 1: action = .replace(try reader.string(at: replacements[index]))
      case 2: action = .allow
      case 3: action = .lexicon
      case 4: action = .review
      default: throw CompiledMatcherError(.malformed("entry action"))
      }
      let boundary: Entry.Boundary
      switch packed >> 4 & 3 {
      case 0: boundary = .word
      case 1: boundary = .substring
      case 2: boundary = .dictionaryWord
      default: throw CompiledMatcherError(.malformed("entry boundary"))
      }
      let file = files[index]
      let text = try reader.uniqueString(at: texts[index])
      let category = categories[index] == none ? nil : try lastCategory.string(at: categories[index], &reader)
      let source =
        file == none ? nil : SourceLocation(file: try lastFile.string(at: file, &reader), line: Int(lines[index]))
      let language = languages[index] == none ? nil : try lastLanguage.string(at: languages[index], &reader)
      let alsoWordOfCodes =
        alsoWordOf[index] == none ? [] : try reader.string(at: alsoWordOf[index]).split(separator: "+").map(String.init)
      // Built whole, after every read that may throw: a local changed and then appended was
      // copied into the array, retaining and releasing each of its strings (a tenth of reading
      // a list back).
      entries.append(
        CompiledEntry(
          entry: Entry(
            text: text, kind: packed & 1 == 0 ? .literal : packed & 1 << 7 == 0 ? .regex : .rawRegex,
            action: action, boundary: boundary, category: category, source: source, language: language,
            alsoWordOf: alsoWordOfCodes, isAlsoName: packed & 1 << 6 != 0, isInsult: packed & 1 << 8 != 0),
          origin: origins[index] == 0 ? .global : .custom))
      if index == 0 || lists[index] != lists[index - 1] {
        listRuns.append(ListRun(start: index, name: try reader.string(at: lists[index])))
      }
    }
    return (entries, listRuns)
  }
}

extension AhoCorasick {
  func encode(into writer: inout CompiledWriter) {
    writer.write(layout.program)
    writer.write(layout.slots)
    writer.write(layout.slotPatterns)
    writer.write(layout.stateCount)
    writer.write(patternLengths)
    writer.write(patternByteLengths)
    writer.write(flatBMPCodes)
    let supplementary = supplementaryCodes.sorted { $0.key < $1.key }
    writer.write(supplementary.map(\.key))
    writer.write(supplementary.map(\.value))
    writer.write(startFilter != nil)
    startFilter?.encode(into: &writer)
    writer.write(scalarFilter != nil)
    scalarFilter?.encode(into: &writer)
    writer.write(asciiFilter != nil)
    if let asciiFilter {
      asciiFilter.filter.encode(into: &writer)
      writer.write(asciiFilter.patterns)
      writer.write(asciiFilter.shortRepeats != nil)
      if let short = asciiFilter.shortRepeats {
        writer.write(short.slots)
        writer.write(short.patterns)
        writer.write(short.shapesByByte)
      }
    }
  }

  /// Reads an automaton back, checking every index its tables hold (``isConsistent``): a file
  /// that passes the checksum may still have been forged.
  convenience init(decoding reader: inout CompiledReader) throws(CompiledMatcherError) {
    let program: [UInt32] = try reader.readArray()
    let slots: [UInt32] = try reader.readArray()
    let slotPatterns: [UInt32] = try reader.readArray()
    let stateCount = try reader.readInt()
    let patternLengths: [UInt32] = try reader.readArray()
    let patternByteLengths: [UInt32] = try reader.readArray()
    let bmpCodes: [UInt32] = try reader.readArray()
    let supplementaryScalars: [UInt32] = try reader.readArray()
    let supplementaryValues: [UInt32] = try reader.readArray()
    guard bmpCodes.count == 0x10000, patternByteLengths.count == patternLengths.count,
      supplementaryScalars.count == supplementaryValues.count, program.count >= AutomatonLayout.rowOffset,
      slots.count % 3 == 0
    else { throw CompiledMatcherError(.malformed("automaton tables")) }
    let startFilter = try reader.readBool() ? try StartFilter(decoding: &reader) : nil
    let scalarFilter = try reader.readBool() ? try ScalarStartFilter(decoding: &reader) : nil
    var asciiFilter: ASCIIWalkFilter? = nil
    if try reader.readBool() {
      let filter = try StartFilter(decoding: &reader)
      let patterns: [UInt32] = try reader.readArray()
      guard patterns.allSatisfy({ Int($0) < patternLengths.count }) else {
        throw CompiledMatcherError(.malformed("ASCII walk filter"))
      }
      var shortRepeats: ShortRepeats? = nil
      if try reader.readBool() {
        let slots: [UInt64] = try reader.readArray()
        let runs: [UInt32] = try reader.readArray()
        let shapesByByte: [UInt16] = try reader.readArray()
        // The scan reads the table unchecked: a power of two of slots, one free at least (a
        // probe stops there), each run inside `runs` and naming patterns of the automaton.
        guard slots.count >= 2, slots.count & (slots.count - 1) == 0, slots.contains(0),
          shapesByByte.count == 128,
          slots.allSatisfy({ slot in
            guard slot != 0 else { return true }
            let index = Int(slot >> 32)
            guard index < runs.count, index + 1 + Int(runs[index]) <= runs.count else { return false }
            return runs[(index + 1)..<(index + 1 + Int(runs[index]))].allSatisfy { Int($0) < patternLengths.count }
          })
        else { throw CompiledMatcherError(.malformed("ASCII walk filter's short repeated patterns")) }
        shortRepeats = ShortRepeats(slots: slots, patterns: runs, shapesByByte: shapesByByte)
      }
      asciiFilter = ASCIIWalkFilter(filter: filter, patterns: patterns, shortRepeats: shortRepeats)
    }
    self.init(
      layout: AutomatonLayout(program: program, slots: slots, slotPatterns: slotPatterns, stateCount: stateCount),
      patternLengths: patternLengths, patternByteLengths: patternByteLengths, bmpCodes: bmpCodes,
      supplementaryCodes: Dictionary(zip(supplementaryScalars, supplementaryValues)) { first, _ in first },
      startFilter: startFilter, scalarFilter: scalarFilter, asciiFilter: asciiFilter)
    guard isConsistent else { throw CompiledMatcherError(.malformed("automaton tables")) }
  }
}
