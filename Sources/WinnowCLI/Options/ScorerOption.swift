import ArgumentParser
import Winnow

/// `--scorer builtin|FILE|none`: which model, if any.
enum ScorerOption {
  /// The model `value` names, or nil for `none`.
  /// - Throws: `ValidationError` naming the file and what is wrong with it.
  static func load(_ value: String) throws -> Scorer? {
    switch value {
    case "none", "": return nil
    case "builtin":
      guard let path = GlobalListLocator.scorerFile() else {
        throw ValidationError(
          "--scorer builtin: cannot find the built-in model (wordlists/scorer/abuse.wnsc beside the global list); pass --scorer FILE"
        )
      }
      return try load(path: path)
    default: return try load(path: value)
    }
  }

  private static func load(path: String) throws -> Scorer {
    do { return try Scorer(contentsOf: path) } catch { throw ValidationError("--scorer \(error)") }
  }
}
