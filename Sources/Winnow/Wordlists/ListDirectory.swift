import Foundation

/// A directory of list files: its `*.txt` files, in name order. Every reader of such a
/// directory (the global and contact lists, `winnow stats`, the compiled-list cache's
/// identity, a server's check for changed files) takes the files from here, so that they all
/// agree on which files make the list and in what order.
package struct ListDirectory: Sendable, Hashable {
  /// The directory.
  package let path: String

  /// The directory at `path` (not read until asked).
  package init(path: String) { self.path = path }

  /// Whether `name` names a list file (`NAME.txt`).
  package static func isListFileName(_ name: String) -> Bool { name.hasSuffix(".txt") }

  /// The names of the list files (`NAME.txt`), in name order.
  /// - Throws: ``WordListErrors`` naming the directory when it cannot be read.
  package func names() throws(WordListErrors) -> [String] {
    do { return try FileManager.default.contentsOfDirectory(atPath: path).filter(Self.isListFileName).sorted() } catch {
      throw WordListErrors([
        WordListError(.unreadable("not a readable directory"), at: SourceLocation(file: path, line: 0))
      ])
    }
  }

  /// The paths of the list files (`DIR/NAME.txt`), in name order; empty when the directory
  /// cannot be read.
  package func files() -> [String] { ((try? names()) ?? []).map { path + "/" + $0 } }

  /// The fingerprints of the list files, in name order: they differ when a file is added,
  /// removed, edited or replaced.
  package func fingerprints() -> [FileFingerprint] { files().compactMap(FileFingerprint.init(path:)) }

  /// Reads every list file, in name order; the errors of all files are collected.
  /// - Throws: ``WordListErrors`` when the directory or any file cannot be read, or has bad lines.
  package func load(origin: WordList.Origin, normalization: Normalization = .default) throws(WordListErrors)
    -> [WordList]
  {
    let names = try names()
    // Files are read and parsed on every core (a list and its lexicon are the two big ones).
    // Meanwhile the fold table of the lists' rules, which compiling them needs first, is built
    // as one more piece of work, on a core free of small files.
    let loaded = concurrentMapEach(count: names.count + 1) { index -> Result<WordList, WordListErrors>? in
      guard index > 0 else {
        _ = FoldTable.shared(for: normalization)
        return nil
      }
      return Result { () throws(WordListErrors) in
        try WordList.load(path: path + "/" + names[index - 1], origin: origin, normalization: normalization)
      }
    }
    var lists: [WordList] = []
    var errors: [WordListError] = []
    for result in loaded {
      switch result {
      case .success(let list)?: lists.append(list)
      case .failure(let error)?: errors += error.errors
      case nil: continue
      }
    }
    guard errors.isEmpty else { throw WordListErrors(errors) }
    return lists
  }
}

/// What tells a file's versions apart without reading it: its inode, size and change times
/// (an edit, or a rename over it, changes one of them).
package struct FileFingerprint: Hashable, Sendable {
  package let path: String
  let inode: UInt64
  let size: Int64
  let modified: Int64
  let modifiedNanoseconds: Int64
  let changed: Int64
  let changedNanoseconds: Int64

  /// The fingerprint of the file at `path`, or nil when there is none.
  package init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    self.path = path
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    modified = Int64(status.st_mtim.tv_sec)
    modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
    changed = Int64(status.st_ctim.tv_sec)
    changedNanoseconds = Int64(status.st_ctim.tv_nsec)
  }
}
