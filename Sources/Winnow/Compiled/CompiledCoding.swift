/// Writes the compiled form of a ``Matcher``: fixed-width integers little-endian, arrays as a
/// count and their elements' bytes in one copy, strings as indices into one table of distinct
/// strings (an entry's list name and file repeat tens of thousands of times). Internal; see
/// ``Matcher/compiledBytes(identity:)``.
struct CompiledWriter {
  private(set) var bytes: [UInt8] = []
  private var strings: [String] = []
  private var stringIndices: [String: UInt32] = [:]
  private var last: (string: String, index: UInt32)? = nil

  mutating func write(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func write(_ value: Int) { write(UInt64(bitPattern: Int64(value))) }

  mutating func write(_ value: Bool) { write(UInt64(value ? 1 : 0)) }

  /// An array of fixed-width integers: its count, then its elements as the host lays them out
  /// (the header records the byte order, see ``CompiledHeader``).
  mutating func write<Element: FixedWidthInteger>(_ array: [Element]) {
    write(array.count)
    array.withUnsafeBytes { bytes.append(contentsOf: $0) }
  }

  /// The index of `string` in the string table, adding it the first time: for strings that
  /// repeat (list names, files, categories).
  mutating func index(of string: String) -> UInt32 {
    // Neighbouring entries share their list, file and category: compared, not hashed.
    if let last, last.string == string { return last.index }
    let index = stringIndices[string] ?? add(string)
    stringIndices[string] = index
    last = (string, index)
    return index
  }

  /// Adds `string` to the string table without looking for it there first, and gives its
  /// index: for strings that are mostly distinct (entry texts, lexicon words), where hashing a
  /// `String` (with its Unicode normalization) cost more than the whole rest of the writing.
  mutating func add(_ string: String) -> UInt32 {
    strings.append(string)
    return UInt32(strings.count - 1)
  }

  /// The string table, then everything written so far: strings are indexed while the rest is
  /// written, and read back first.
  func finished() -> [UInt8] {
    var table = CompiledWriter()
    var lengths: [UInt32] = []
    var characters: [UInt8] = []
    lengths.reserveCapacity(strings.count)
    for string in strings {
      lengths.append(UInt32(string.utf8.count))
      characters.append(contentsOf: string.utf8)
    }
    table.write(lengths)
    table.write(characters)
    return table.bytes + bytes
  }
}

/// Reads what ``CompiledWriter`` wrote, checking every count against the bytes left, so that a
/// short or garbled file is an error, never a read past the end. Internal.
struct CompiledReader {
  private let base: UnsafeRawPointer
  private let count: Int
  /// Bytes read so far.
  private(set) var offset = 0
  /// The string table: its bytes, and each string's span of them (start `<< 32 | end`).
  private var characters: [UInt8] = []
  private var spans: [UInt64] = []
  /// The strings that repeat (``CompiledWriter/index(of:)``: an entry's list, file and
  /// category, tens of thousands of times each), made once, by index.
  private var strings: [UInt32: String] = [:]

  /// Reads `bytes`, which must outlive the reader, as a header: fixed fields, no string table.
  init(headerOf bytes: UnsafeRawBufferPointer) {
    base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
    count = bytes.count
  }

  /// Reads `bytes`, which must outlive the reader; the string table comes first.
  init(_ bytes: UnsafeRawBufferPointer) throws(CompiledMatcherError) {
    base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
    count = bytes.count
    let lengths: [UInt32] = try readArray()
    let characters: [UInt8] = try readArray()
    // Spans, not strings: most of a list's strings are lexicon words that a scan never reads
    // as strings (``LexiconWords``).
    guard characters.count < Int(UInt32.max) else { throw CompiledMatcherError(.malformed("string table")) }
    var spans: [UInt64] = []
    spans.reserveCapacity(lengths.count)
    var start = 0
    for length in lengths {
      let end = start + Int(length)
      guard end <= characters.count else { throw CompiledMatcherError(.malformed("string table")) }
      spans.append(UInt64(start) << 32 | UInt64(end))
      start = end
    }
    self.characters = characters
    self.spans = spans
  }

  /// Whether every byte has been read.
  var isAtEnd: Bool { offset == count }

  mutating func readUInt64() throws(CompiledMatcherError) -> UInt64 {
    guard count - offset >= 8 else { throw CompiledMatcherError(.malformed("truncated")) }
    // SAFETY: 8 bytes remain at `offset`, checked above; loadUnaligned needs no alignment.
    let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    offset += 8
    return UInt64(littleEndian: value)
  }

  mutating func readInt() throws(CompiledMatcherError) -> Int {
    let value = Int64(bitPattern: try readUInt64())
    guard let int = Int(exactly: value) else { throw CompiledMatcherError(.malformed("integer out of range")) }
    return int
  }

  /// A count of at most `limit` (the elements left, or a table's size).
  mutating func readCount(limit: Int) throws(CompiledMatcherError) -> Int {
    let value = try readInt()
    guard value >= 0 && value <= limit else { throw CompiledMatcherError(.malformed("count \(value) out of range")) }
    return value
  }

  mutating func readBool() throws(CompiledMatcherError) -> Bool { try readUInt64() != 0 }

  mutating func readArray<Element: FixedWidthInteger>(
    of _: Element.Type = Element.self
  ) throws(CompiledMatcherError) -> [Element] {
    let size = MemoryLayout<Element>.stride
    let elements = try readCount(limit: (count - offset - 8) / size)
    let start = offset
    offset += elements * size
    return [Element](unsafeUninitializedCapacity: elements) { buffer, initialized in
      HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
      // SAFETY: `elements * size` bytes remain at `start` (the count was checked against the
      // bytes left), and the buffer has room for `elements` trivial integers.
      UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base + start, byteCount: elements * size)
      initialized = elements
    }
  }

  /// A string of the table by the index ``CompiledWriter/index(of:)`` gave it, made once.
  mutating func string(at index: UInt32) throws(CompiledMatcherError) -> String {
    guard Int(index) < spans.count else { throw CompiledMatcherError(.malformed("string index \(index)")) }
    if let string = strings[index] { return string }
    let string = makeString(spans[Int(index)])
    strings[index] = string
    return string
  }

  /// A string of the table that is read once (``CompiledWriter/add(_:)``: an entry's text),
  /// made without keeping it.
  func uniqueString(at index: UInt32) throws(CompiledMatcherError) -> String {
    guard Int(index) < spans.count else { throw CompiledMatcherError(.malformed("string index \(index)")) }
    return makeString(spans[Int(index)])
  }

  private func makeString(_ span: UInt64) -> String {
    characters.withUnsafeBufferPointer { LexiconWords.string(at: span, of: $0) }
  }

  /// The strings of the table at `indices`, in order, as ``LexiconWords`` that make them into
  /// strings only when asked.
  func lexiconWords(at indices: [UInt32]) throws(CompiledMatcherError) -> LexiconWords {
    var words: [UInt64] = []
    words.reserveCapacity(indices.count)
    for index in indices {
      guard Int(index) < spans.count else { throw CompiledMatcherError(.malformed("string index \(index)")) }
      words.append(spans[Int(index)])
    }
    return LexiconWords(characters: characters, spans: words)
  }
}

/// Why a compiled matcher could not be read back. The reader of a cache treats any of these as
/// a miss: it compiles the lists again.
package struct CompiledMatcherError: Error, Sendable, CustomStringConvertible {
  package enum Kind: Sendable, Equatable {
    /// Not a compiled matcher, or one of another format version or byte order.
    case notCompiledMatcher
    /// Written for other lists or another build (its identity differs).
    case otherIdentity
    /// The checksum does not match: the file was changed or cut short.
    case checksum
    /// The bytes do not describe a matcher (says what was wrong).
    case malformed(String)
  }

  package let kind: Kind

  init(_ kind: Kind) { self.kind = kind }

  package var description: String {
    switch kind {
    case .notCompiledMatcher: "not a compiled matcher of this format"
    case .otherIdentity: "compiled for other lists or another build"
    case .checksum: "checksum mismatch"
    case .malformed(let what): "malformed compiled matcher: \(what)"
    }
  }
}

/// A fast 64-bit checksum of bytes: four independent multiply-rotate lanes over 8-byte words,
/// mixed at the end (MurmurHash3's finalizer). Not cryptographic: it catches a cut-short or
/// garbled file, not a forged one. The CLI also uses it to tell list files apart.
package enum CompiledChecksum {
  package static func of(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    var lanes: (UInt64, UInt64, UInt64, UInt64) = (seed &+ prime1, seed &+ prime2, seed, seed &- prime1)
    @inline(__always) func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
      ((lane ^ (word &* prime2)) << 31 | (lane ^ (word &* prime2)) >> 33) &* prime1
    }
    guard let base = bytes.baseAddress else { return mix(seed) }
    var offset = 0
    while offset + 32 <= bytes.count {
      // SAFETY: 32 bytes remain at `offset`; loadUnaligned needs no alignment.
      lanes.0 = round(lanes.0, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      lanes.1 = round(lanes.1, base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
      lanes.2 = round(lanes.2, base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
      lanes.3 = round(lanes.3, base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
      offset += 32
    }
    var tail = lanes.0 ^ mix(lanes.1) ^ (mix(lanes.2) << 1 | mix(lanes.2) >> 63) ^ mix(lanes.3 &+ prime2)
    while offset < bytes.count {
      tail = round(tail, UInt64(bytes[offset]))
      offset += 1
    }
    return mix(tail ^ UInt64(bytes.count))
  }

  /// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value ^= value >> 33
    value &*= 0xFF51_AFD7_ED55_8CCD
    value ^= value >> 33
    value &*= 0xC4CE_B9FE_1A85_EC53
    value ^= value >> 33
    return value
  }
}
