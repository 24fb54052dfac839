/// Chooses, from every match of a text (overlapping ones included, in every layer), the
/// non-overlapping ones that decide and are reported: what blocks first, then what rewrites,
/// then what is flagged.
///
/// Choosing spans leftmost-longest before comparing actions let a longer or earlier entry hide
/// a stronger one: an app's replace entry `你是傻 => **` turned the global block word `傻逼` of
/// `你是傻逼` into a delivered `**逼`, and a global review entry `专业代` hid an app's block entry
/// `代购`. Here each tier is chosen leftmost-longest among its own matches and the matches of
/// the tiers before it, so every entry that matches anywhere takes part:
///
/// 1. global matches that block, 2. custom matches that block (so a record says block type 1
///    whenever a global entry blocks, as the platform checks its global list first),
/// 3. replace matches (a replacement applies only where nothing blocks),
/// 4. review matches.
///
/// A match of a lower tier overlapping a chosen one is not reported: a review word inside a
/// replaced span is gone from the text the reviewer sees.
enum DecidingMatches {
  /// The chosen elements of `items` (matches of one text, in any order), in order of start.
  /// - Parameter blocks: whether an element blocks (a block entry; for an item, also a replace
  ///   entry in an extension key).
  static func choose<Item>(_ items: [Item], match: (Item) -> Match, blocks: (Item) -> Bool) -> [Item] {
    guard items.count > 1 else { return items }
    // Each element's tier and span, read once: read through `match` in the loops below, an
    // element was copied (its entry's strings retained and released) for every comparison,
    // which made this choice a third of screening a line with matches.
    var tiers: [Int] = []
    var ranges: [Range<Int>] = []
    tiers.reserveCapacity(items.count)
    ranges.reserveCapacity(items.count)
    for item in items {
      let found = match(item)
      if blocks(item) {
        tiers.append(found.origin == .global ? 0 : 1)
      } else {
        tiers.append(found.action.isReplace ? 2 : 3)
      }
      ranges.append(found.range)
    }
    var chosen: [Int] = []
    for level in 0...3 {
      var candidates = items.indices.filter { index in
        tiers[index] == level && !chosen.contains { ranges[$0].overlaps(ranges[index]) }
      }
      // Ties (one span, several entries) go to the element given first: the matcher orders
      // them by layer and list line.
      MatchKind.leftmostLongest.select(
        &candidates, start: { ranges[$0].lowerBound }, end: { ranges[$0].upperBound }, pattern: { $0 })
      chosen += candidates
    }
    chosen.sort {
      (ranges[$0].lowerBound, ranges[$0].upperBound, $0) < (ranges[$1].lowerBound, ranges[$1].upperBound, $1)
    }
    return chosen.map { items[$0] }
  }
}

extension Match {
  /// The matches of one text that decide its verdict and are reported, chosen from all of
  /// them (``Matcher/overlappingMatches(in:)``): block matches first (global before custom),
  /// then replace, then review matches, each tier leftmost-longest among what the tiers before
  /// it left free. What ``ModerationEngine`` reports for a field.
  package static func deciding(_ matches: [Match]) -> [Match] {
    DecidingMatches.choose(matches, match: { $0 }, blocks: { $0.action == .block })
  }
}
