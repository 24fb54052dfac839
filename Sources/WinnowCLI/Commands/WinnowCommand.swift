import ArgumentParser
import CWinnowStartup

/// The `winnow` command: moderation of chat text from the shell.
@main
struct WinnowCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "winnow",
    abstract: "Find sensitive words in chat text, whatever evasions hide them.",
    discussion: """
      Exit status: 0 when nothing matched, 1 when something matched, 2 or more on an error \
      (bad usage, unreadable input or word list).
      """,
    version: "0.1.0",
    subcommands: [
      ScanCommand.self, SummaryCommand.self, CheckCommand.self, WordsCommand.self, DiffCommand.self, ServeCommand.self,
      MatchCommand.self, OffendersCommand.self, StoreCommand.self, ScoreCommand.self,
    ]
  )

  /// Runs the command. `serve` reloads its lists on `SIGHUP`, whose default action ends the
  /// process: `CWinnowStartup`'s constructor ignores it before the Swift runtime starts, so
  /// that a reload asked for while the server starts (a deployment's `kill -HUP` right after
  /// launch) never kills it. The server traps it once it can reload. For every other command,
  /// the same file's constructors have glibc's allocator keep freed blocks for reuse (see
  /// `startup.c`).
  static func main() async {
    // Keeps the constructor's object file in the executable.
    _ = winnow_startup_linked()
    await main(nil)
  }
}
