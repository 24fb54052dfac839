/// The contents of a model file (format 2; format 1 is read too), all numbers little-endian:
///
/// | bytes | what |
/// |---|---|
/// | 8 | `WNSCORER` |
/// | 4 | format version, 2 (or 1) |
/// | 4 | feature version (``Scorer/featureVersion``) |
/// | 4 | bits of the table: it has 2^bits buckets, 10 to 24 |
/// | 4 | bias (Float32) |
/// | 4 | scale: a bucket's weight is its byte times this (Float32, positive) |
/// | 4 | advised block threshold (Float32, 0 to 1) |
/// | 4 | advised review threshold (Float32, 0 to the block threshold) |
/// | 4 | advised clear threshold (Float32, 0 to the review threshold; 0: never clear); format 2 only, format 1 reads as 0 |
/// | 4 + n | category: its length, then UTF-8 (1 to 64 bytes) |
/// | 4 + n | description: its length, then UTF-8 (at most 64 KiB) |
/// | 2^bits | the weights, one signed byte a bucket |
/// | 8 | FNV-1a (64 bits) of every byte before it |
struct ScorerModel: Equatable {
  static let magic = Array("WNSCORER".utf8)
  static let formatVersion: UInt32 = 2
  /// The versions this build reads.
  static let readableVersions: ClosedRange<UInt32> = 1...2
  static let bitRange: ClosedRange<UInt32> = 10...24

  var bias: Float
  var scale: Float
  var blockThreshold: Float
  var reviewThreshold: Float
  var clearThreshold: Float
  var category: String
  var description: String
  var weights: [Int8]

  /// Why bytes are not a model file.
  struct Problem: Error {
    let problem: String
  }

  /// FNV-1a, 64 bits.
  static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
  }

  init(
    bias: Float, scale: Float, blockThreshold: Float, reviewThreshold: Float, clearThreshold: Float = 0,
    category: String,
    description: String, weights: [Int8]
  ) {
    self.bias = bias
    self.scale = scale
    self.blockThreshold = blockThreshold
    self.reviewThreshold = reviewThreshold
    self.clearThreshold = clearThreshold
    self.category = category
    self.description = description
    self.weights = weights
  }

  init(decoding bytes: [UInt8]) throws(Problem) {
    var reader = Reader(bytes: bytes)
    guard bytes.count >= 16, Array(bytes[0..<8]) == Self.magic else {
      throw Problem(problem: "not a Winnow model file (it does not start with WNSCORER)")
    }
    reader.offset = 8
    guard bytes.count >= 8 + 8 else { throw Problem(problem: "cut short") }
    let stored = bytes[(bytes.count - 8)...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    guard Self.checksum(bytes[..<(bytes.count - 8)]) == stored else {
      throw Problem(problem: "checksum does not match: the file is damaged or cut short")
    }
    reader.end = bytes.count - 8
    let format = try reader.u32()
    guard Self.readableVersions.contains(format) else {
      throw Problem(
        problem:
          "format version \(format); this winnow reads versions \(Self.readableVersions.lowerBound) to \(Self.readableVersions.upperBound)"
      )
    }
    let features = try reader.u32()
    guard features == Scorer.featureVersion else {
      throw Problem(
        problem: "trained on feature version \(features); this winnow computes version \(Scorer.featureVersion)")
    }
    let bits = try reader.u32()
    guard Self.bitRange.contains(bits) else {
      throw Problem(
        problem:
          "a table of 2^\(bits) buckets; expected \(Self.bitRange.lowerBound) to \(Self.bitRange.upperBound) bits")
    }
    bias = try reader.f32()
    scale = try reader.f32()
    blockThreshold = try reader.f32()
    reviewThreshold = try reader.f32()
    clearThreshold = format >= 2 ? try reader.f32() : 0
    guard bias.isFinite, scale.isFinite, scale > 0 else {
      throw Problem(problem: "bias or scale is not a usable number")
    }
    guard (0...1).contains(blockThreshold), (0...blockThreshold).contains(reviewThreshold),
      (0...reviewThreshold).contains(clearThreshold)
    else {
      throw Problem(problem: "thresholds must satisfy 0 ≤ clear ≤ review ≤ block ≤ 1")
    }
    category = try reader.string(limit: 64, name: "category")
    guard !category.isEmpty else { throw Problem(problem: "the category is empty") }
    description = try reader.string(limit: 65_536, name: "description")
    let size = 1 << Int(bits)
    let table = try reader.bytes(size)
    weights = table.map { Int8(bitPattern: $0) }
    guard reader.offset == reader.end else {
      throw Problem(problem: "\(reader.end - reader.offset) bytes after the weights")
    }
  }

  /// The bytes of the file.
  var encoded: [UInt8] {
    var bytes = Self.magic
    func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    func f32(_ value: Float) { u32(value.bitPattern) }
    u32(Self.formatVersion)
    u32(Scorer.featureVersion)
    u32(UInt32(weights.count.trailingZeroBitCount))
    f32(bias)
    f32(scale)
    f32(blockThreshold)
    f32(reviewThreshold)
    f32(clearThreshold)
    for text in [category, description] {
      u32(UInt32(text.utf8.count))
      bytes += text.utf8
    }
    bytes += weights.map { UInt8(bitPattern: $0) }
    withUnsafeBytes(of: Self.checksum(bytes[...]).littleEndian) { bytes += $0 }
    return bytes
  }

  /// Reads little-endian fields up to `end`.
  private struct Reader {
    let bytes: [UInt8]
    var offset = 0
    var end: Int

    init(bytes: [UInt8]) {
      self.bytes = bytes
      self.end = bytes.count
    }

    mutating func bytes(_ count: Int) throws(Problem) -> ArraySlice<UInt8> {
      guard count >= 0, count <= end - offset else {
        throw Problem(problem: "cut short at byte \(offset) (\(count) more bytes expected)")
      }
      defer { offset += count }
      return bytes[offset..<(offset + count)]
    }

    mutating func u32() throws(Problem) -> UInt32 {
      try bytes(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    mutating func f32() throws(Problem) -> Float { Float(bitPattern: try u32()) }

    mutating func string(limit: Int, name: String) throws(Problem) -> String {
      let length = try u32()
      guard length <= limit else { throw Problem(problem: "the \(name) is \(length) bytes, more than \(limit)") }
      let slice = try bytes(Int(length))
      guard let text = String(validating: slice, as: UTF8.self) else {
        throw Problem(problem: "the \(name) is not UTF-8")
      }
      return text
    }
  }
}
