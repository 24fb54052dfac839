/// Takes the text a person wrote out of an item, by the message's object name, so that only
/// that text is moderated: never ids, URLs of media or base64 thumbnails.
///
/// Built-in types (``builtInRules``): `RC:TxtMsg` → `content`, `mentionedInfo.mentionedContent`;
/// `RC:ReferenceMsg` → `content` and the quoted `referMsg` text; `RC:FileMsg`, `RC:GIFMsg`,
/// `RC:SightMsg` → `name`; `RC:LBSMsg` → `poi`; `RC:CombineMsg` → `title`, `nameList[]`,
/// `summaryList[]`; `RC:ImgTextMsg` → `title`, `content`; every one of them also the
/// ``commonFields``, `extra`, `user.name` and the `@` mention text
/// `mentionedInfo.mentionedContent`, which any type may carry. Images and voice (`RC:ImgMsg`,
/// `RC:HQVCMsg`, `RC:VcMsg`) give only those. Command and status messages (read receipts,
/// typing status, recalls, …) have no user text and pass untouched.
///
/// An extension gives every key and every string value under `put`; an edit gives the fields of
/// its new content by the edited message's object name.
///
/// Custom types are registered with the paths of their text fields, and the common fields
/// unless the registration says otherwise (``register(objectName:textFields:commonFields:)``);
/// types neither built in nor registered follow ``unknownTypes``. Content that is a string, not
/// an object (a custom type may carry plain text), is moderated as one text field, whatever the
/// type's paths.
@_spi(Tools) public struct ContentExtractor: Sendable, Hashable {
  /// How the fields of one object name are found.
  public enum Rule: Sendable, Hashable {
    /// The strings at these paths.
    case fields([FieldPath])
    /// No user text: the item passes untouched.
    case none
  }

  /// What to do with an object name that is neither built in nor registered.
  public enum UnknownTypePolicy: String, Sendable, Hashable, CaseIterable {
    /// Moderate every string value of the content (the safe default).
    case scanAllStrings = "scan"
    /// Moderate nothing: the item passes.
    case skip
  }

  /// The platform's limit on message content, 128 KB.
  public static let platformContentLimit = 128 * 1024

  /// Rules by object name: the built-in ones plus registered custom types.
  public private(set) var rules: [String: Rule]
  /// The paths of each rule of fields as a trie (``FieldPath/trie(_:)``), made with the rule:
  /// what ``PathTrie``'s one walk reads, for ``fields(of:)`` and for the in-place check of
  /// dump lines.
  private var pathTries: [String: [UInt8]]
  /// The policy for unknown object names.
  public var unknownTypes: UnknownTypePolicy
  /// The largest content, in bytes of compact JSON, that is moderated; larger content is an
  /// ``ItemError``.
  public var contentLimit: Int

  /// An extractor with the built-in rules.
  public init(unknownTypes: UnknownTypePolicy = .scanAllStrings, contentLimit: Int = platformContentLimit) {
    self.rules = Self.builtInRules
    self.pathTries = Self.builtInPathTries
    self.unknownTypes = unknownTypes
    self.contentLimit = contentLimit
  }

  /// Registers a custom message type and the paths of its user text (see ``FieldPath``), and
  /// unless `commonFields` is false the fields every type may carry (``commonFields``: `extra`,
  /// `user.name`, the `@` mention text), after its own.
  /// - Throws: ``ExtractionRuleError`` when the name starts with `RC:` (reserved for built-in
  ///   types) or is empty, or a path is malformed.
  public mutating func register(objectName: String, textFields: [String], commonFields: Bool = true)
    throws(ExtractionRuleError)
  {
    guard !objectName.isEmpty else { throw ExtractionRuleError("a custom message type needs a name") }
    guard !objectName.hasPrefix("RC:") else {
      throw ExtractionRuleError("custom message type \"\(objectName)\": names starting with RC: are reserved")
    }
    var paths: [FieldPath] = []
    for field in commonFields ? Self.withCommonFields(textFields) : textFields { paths.append(try FieldPath(field)) }
    rules[objectName] = .fields(paths)
    pathTries[objectName] = FieldPath.trie(paths)
  }

  /// The user text of an item, in content order.
  /// - Throws: ``ItemError`` when the content is over ``contentLimit``.
  public func fields(of item: MessageItem) throws(ItemError) -> [TextField] {
    let size = item.content.compactSize
    let field = item.sourceType == .original ? "content" : "sourceContent"
    guard size <= contentLimit else { throw ItemError(.tooLarge(size, limit: contentLimit), field: field) }
    var fields: [TextField] = []
    switch item.sourceType {
    case .extension:
      guard case .object(let members) = item.content else {
        throw ItemError(.invalidField("sourceContent", "an object {\"mid\":…,\"put\":{…}}"))
      }
      for (index, member) in members.enumerated() where member.isNamed("put") {
        guard case .object(let entries) = member.value else {
          throw ItemError(.invalidField("put", "an object of extension keys and values"))
        }
        for (position, entry) in entries.enumerated() {
          let steps: [FieldLocation.Step] = [.member(index), .member(position)]
          fields.append(
            TextField(
              location: FieldLocation(steps: steps, isKey: true, description: "put.\(entry.key) (key)"),
              text: entry.key))
          entry.value.collectStrings(steps: steps, path: "put.\(entry.key)", into: &fields)
        }
      }
    case .original, .edit:
      switch rule(for: item.objectName) {
      case .fields(let paths)?:
        // Content that is text, not an object (a custom type may carry plain text): the
        // text is what the person wrote, whatever paths the type's rule names.
        if case .string(let text) = item.content {
          fields.append(TextField(location: FieldLocation(steps: [], isKey: false, description: "content"), text: text))
          break
        }
        // The one walk of the rule's paths (``PathTrie``), as the in-place check of a dump
        // line makes it over bytes; fields in the rule's order of paths, each path's in the
        // content's order.
        let isTextMessage = item.objectName == MessageItem.defaultObjectName
        let found = withPathTrie(for: item.objectName) { _, trie -> [(order: Int, field: TextField)] in
          guard let trie else { return [] }
          let pathTrie = PathTrie(bytes: trie)
          let walker = ParsedContentWalker(
            ends: isTextMessage ? Self.textMessagePathEnds : Self.pathEnds(paths, in: pathTrie))
          let root = ParsedContentWalker.Value(json: item.content, parentSteps: [], parentDescription: "", last: nil)
          var found: [(order: Int, field: TextField)] = []
          // The parsed walker throws nothing: it is never unsure of a parsed value.
          try? pathTrie.walk(root, from: 0, with: walker, into: &found)
          return found
        }
        // Sorted only when out of order: most contents have one field on a path.
        // Taken whole when they are the only fields (most items): appended, each was copied.
        if zip(found, found.dropFirst()).allSatisfy({ $0.order <= $1.order }) {
          if fields.isEmpty { fields = found.map(\.field) } else { fields += found.map(\.field) }
        } else {
          fields += found.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }
            .map(\.element.field)
        }
      case .none?:
        break
      case nil:
        if unknownTypes == .scanAllStrings { item.content.collectStrings(steps: [], path: "", into: &fields) }
      }
    }
    // The push texts, after the content: what a lock screen shows is the message too.
    // One call per text: a loop over an array of them allocated the array for every item.
    func push(_ text: String?, _ part: FieldLocation.Part, _ name: String) throws(ItemError) {
      guard let text, !text.isEmpty else { return }
      guard text.utf8.count <= contentLimit else {
        throw ItemError(.tooLarge(text.utf8.count, limit: contentLimit), field: name)
      }
      fields.append(
        TextField(location: FieldLocation(steps: [], isKey: false, description: name, part: part), text: text))
    }
    try push(item.pushContent, .pushContent, "pushContent")
    try push(item.pushData, .pushData, "pushData")
    try push(item.pushTitle, .pushTitle, "pushExt.title")
    return fields
  }

  /// The node of `trie` where each of `paths` ends, in their order (-1 for one the trie lacks).
  private static func pathEnds(_ paths: [FieldPath], in trie: PathTrie) -> [Int] {
    paths.map { trie.end(of: $0) ?? -1 }
  }

  /// The text message's ``pathEnds(_:in:)``, made once: looked up for every text message read
  /// (four paths, a large part of extracting its fields: `Benchmarks/HISTORY.md`).
  private static let textMessagePathEnds: [Int] = {
    guard case .fields(let paths)? = textMessageRule, let trie = textMessagePathTrie else { return [] }
    return pathEnds(paths, in: PathTrie(bytes: trie))
  }()

  /// The rule of an object name, nil for one neither built in nor registered.
  func rule(for objectName: String) -> Rule? {
    // Text messages, most of any dump, skip hashing their name: built-in names cannot be
    // registered again, so their rule is always the built-in one.
    objectName == MessageItem.defaultObjectName ? Self.textMessageRule : rules[objectName]
  }

  private static let textMessageRule = builtInRules[MessageItem.defaultObjectName]

  /// `body(known, trie)`: whether the object name has a rule, and the rule's paths as a trie
  /// (``FieldPath/trie(_:)``), or nil for a rule of no fields (``Rule/none``) or an unknown
  /// name. The trie is lent in place: reached through an array, a text message's (the most
  /// common) was retained and released for every line.
  func withPathTrie<Result>(
    for objectName: String, _ body: (_ known: Bool, _ trie: UnsafeBufferPointer<UInt8>?) -> Result
  ) -> Result {
    // Text messages skip hashing their name, as in ``rule(for:)``.
    if objectName == MessageItem.defaultObjectName, let trie = Self.textMessagePathTrie { return body(true, trie) }
    guard let trie = pathTries[objectName] else { return body(rules[objectName] != nil, nil) }
    return trie.withUnsafeBufferPointer { body(true, $0) }
  }

  private static let builtInPathTries: [String: [UInt8]] = builtInRules.compactMapValues { rule in
    guard case .fields(let paths) = rule else { return nil }
    return FieldPath.trie(paths)
  }

  /// The text message's path trie (what ``withPathTrie(for:_:)`` lends for `RC:TxtMsg`), in
  /// memory that lives as long as the process: lent without an array to retain, and read by
  /// the in-place check of a dump line while it walks the line.
  // SAFETY: written once, when first read, and never changed or freed.
  nonisolated(unsafe) static let textMessagePathTrie: UnsafeBufferPointer<UInt8>? = builtInPathTries[
    MessageItem.defaultObjectName
  ].map {
    trie in
    let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: trie.count)
    _ = copy.initialize(from: trie)
    return UnsafeBufferPointer(copy)
  }

  /// The fields every message type may carry (seed 003: `extra`, `user.name`; seed 004: the
  /// `@` mention text of any type), read after a type's own.
  public static let commonFields = ["extra", "user.name", "mentionedInfo.mentionedContent"]

  /// The rules for the platform's own message types.
  public static let builtInRules: [String: Rule] = {
    func fields(_ paths: String...) -> Rule {
      .fields(withCommonFields(paths).map { try! FieldPath($0) })
    }
    var rules: [String: Rule] = [
      "RC:TxtMsg": fields("content", "mentionedInfo.mentionedContent"),
      "RC:ReferenceMsg": fields(
        "content", "referMsg.content", "referMsg.name", "referMsg.title", "mentionedInfo.mentionedContent"),
      "RC:FileMsg": fields("name"),
      "RC:GIFMsg": fields("name"),
      "RC:SightMsg": fields("name"),
      "RC:LBSMsg": fields("poi"),
      "RC:CombineMsg": fields("title", "nameList[]", "summaryList[]"),
      "RC:CombineV2Msg": fields("title", "nameList[]", "summaryList[]"),
      "RC:ImgTextMsg": fields("title", "content"),
      "RC:ImgMsg": fields(),
      "RC:HQVCMsg": fields(),
      "RC:VcMsg": fields(),
    ]
    for command in [
      "RC:ReadNtf", "RC:TypSts", "RC:RcCmd", "RC:RcNtf", "RC:SRSMsg", "RC:RRReqMsg", "RC:RRRspMsg", "RC:CmdMsg",
      "RC:CmdNtf", "RC:ProfileNtf", "RC:GrpNtf", "RC:ContactNtf", "RC:InfoNtf", "RC:MsgExMsg", "RC:RRUpdateMsg",
    ] {
      rules[command] = Rule.none
    }
    return rules
  }()

  /// `paths` and then the common fields it does not name already.
  static func withCommonFields(_ paths: [String]) -> [String] {
    paths + commonFields.filter { !paths.contains($0) }
  }
}

/// A custom message type that cannot be registered.
@_spi(Tools) public struct ExtractionRuleError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Why the registration was refused.
  public let description: String
  init(_ description: String) { self.description = description }
}
