import ArgumentParser

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
      MatchCommand.self,
    ]
  )
}
