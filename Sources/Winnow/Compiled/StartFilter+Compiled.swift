// The start filters written into and read back from a compiled matcher (see
// `Matcher+Compiled.swift`).

extension StartFilter {
  /// Writes the filter for ``init(decoding:)``.
  func encode(into writer: inout CompiledWriter) {
    writer.write(words)
    for window in [w1, w2, w3, w4, w6, w8] {
      writer.write(window.mask)
      writer.write(window.shift)
      writer.write(window.offset)
    }
    writer.write(hasShort)
    writer.write(gateOffset)
    writer.write(hasSingles)
    writer.write(singlesOffset)
    writer.write(prefixOffset)
    writer.write(prefixShift)
    writer.write(skipsSpaces)
    patterns.encode(into: &writer)
  }

  /// Reads a filter back; every bitmap and table must lie inside its array.
  init(decoding reader: inout CompiledReader) throws(CompiledMatcherError) {
    words = try reader.readArray()
    var windows: [Window] = []
    for _ in 0..<Self.windowLengths.count {
      let window = Window(mask: try reader.readUInt64(), shift: try reader.readUInt64(), offset: try reader.readInt())
      guard BlockedBloom.bitmapFits(offset: window.offset, shift: window.shift, inWords: words.count) else {
        throw CompiledMatcherError(.malformed("start filter window"))
      }
      windows.append(window)
    }
    (w1, w2, w3, w4, w6, w8) = (windows[0], windows[1], windows[2], windows[3], windows[4], windows[5])
    hasShort = try reader.readBool()
    gateOffset = try reader.readInt()
    guard gateOffset >= 0 && gateOffset + Self.gateWords <= words.count else {
      throw CompiledMatcherError(.malformed("start filter gate"))
    }
    hasSingles = try reader.readBool()
    singlesOffset = try reader.readInt()
    guard singlesOffset >= 0 && singlesOffset + 4 <= words.count else {
      throw CompiledMatcherError(.malformed("start filter singles"))
    }
    prefixOffset = try reader.readInt()
    prefixShift = try reader.readUInt64()
    guard PrefixTable.fits(offset: prefixOffset, shift: prefixShift, inWords: words.count) else {
      throw CompiledMatcherError(.malformed("start filter prefix table"))
    }
    skipsSpaces = try reader.readBool()
    patterns = try WindowPatterns(decoding: &reader)
  }
}

extension ScalarStartFilter {
  /// Writes the filter for ``init(decoding:)``.
  func encode(into writer: inout CompiledWriter) {
    writer.write(words)
    for (offset, shift) in [(offsets.0, shifts.0), (offsets.1, shifts.1)] {
      writer.write(offset)
      writer.write(shift)
    }
    writer.write(hasSingles)
    writer.write(hasSupplementarySingles)
    writer.write(prefixOffset)
    writer.write(prefixShift)
    writer.write(longPrefixOffset)
    writer.write(longPrefixShift)
    writer.write(startsWithSpace)
  }

  /// Reads a filter back; every bitmap must lie inside `words`.
  init(decoding reader: inout CompiledReader) throws(CompiledMatcherError) {
    words = try reader.readArray()
    guard words.count >= Self.bmpSinglesWords else { throw CompiledMatcherError(.malformed("scalar filter")) }
    var offsets: [Int] = []
    var shifts: [UInt64] = []
    for _ in 0..<2 {
      let (offset, shift) = (try reader.readInt(), try reader.readUInt64())
      guard BlockedBloom.bitmapFits(offset: offset, shift: shift, inWords: words.count) else {
        throw CompiledMatcherError(.malformed("scalar filter bitmap"))
      }
      offsets.append(offset)
      shifts.append(shift)
    }
    self.offsets = (offsets[0], offsets[1])
    self.shifts = (shifts[0], shifts[1])
    hasSingles = try reader.readBool()
    hasSupplementarySingles = try reader.readBool()
    prefixOffset = try reader.readInt()
    prefixShift = try reader.readUInt64()
    guard PrefixTable.fits(offset: prefixOffset, shift: prefixShift, inWords: words.count) else {
      throw CompiledMatcherError(.malformed("scalar filter prefix table"))
    }
    longPrefixOffset = try reader.readInt()
    longPrefixShift = try reader.readUInt64()
    guard PrefixTable.fits(offset: longPrefixOffset, shift: longPrefixShift, inWords: words.count) else {
      throw CompiledMatcherError(.malformed("scalar filter long prefix table"))
    }
    startsWithSpace = try reader.readBool()
  }
}
