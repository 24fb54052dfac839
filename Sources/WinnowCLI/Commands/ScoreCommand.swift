import ArgumentParser
import Foundation
@_spi(Tools) import Winnow

/// `winnow score`: the learned scorer's score of each line of text.
struct ScoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "score",
    abstract: "Score each line of text with the learned scorer (0: ordinary, 1: abusive).",
    discussion: """
      Each input line is one text; each gets one output line, in order: its score with four \
      decimals, a tab and the text. --logit writes the logit alone, in full; --features BITS \
      writes the text's hashed features (BUCKET:1 or BUCKET:-1, space-separated), what \
      scripts/train-scorer learns from. --quiet writes only a line of totals and speed on \
      standard error. The model is described in Docs/scorer.md.
      """
  )

  @Argument(help: "Files of texts, one a line; - or nothing for standard input.")
  var files: [String] = []

  @Option(
    name: .customLong("scorer"), help: ArgumentHelp("The model: builtin or a model FILE.", valueName: "builtin|FILE"))
  var scorer = "builtin"

  @Flag(help: "Write each text's logit alone, with every digit.")
  var logit = false

  @Option(help: ArgumentHelp("Write each text's features in a table of 2^BITS buckets (10 to 24).", valueName: "BITS"))
  var features: Int?

  @Flag(help: "Write nothing but the totals and speed, on standard error.")
  var quiet = false

  func validate() throws {
    if let features, !(10...24).contains(features) { throw ValidationError("--features must be from 10 to 24") }
    if logit && features != nil { throw ValidationError("--logit and --features cannot be used together") }
  }

  func run() throws {
    let model: Scorer? = features == nil ? try ScorerOption.load(scorer == "none" ? "builtin" : scorer) : nil
    var output = Data()
    output.reserveCapacity(1 << 16)
    let stdout = FileHandle.standardOutput
    var texts = 0
    var bytes = 0
    var elapsed = Duration.zero
    for file in files.isEmpty ? ["-"] : files {
      let data: Data
      do { data = file == "-" ? readStandardInput() : try readWholeFile(file) } catch {
        FileHandle.standardError.write(Data("winnow: \(error)\n".utf8))
        throw CLIError.exitCode
      }
      // Lines as byte ranges (`Data.split` made a `Data` of every line, each access checked).
      let content = [UInt8](data)
      var lines: [Range<Int>] = []
      var lineStart = 0
      for (index, byte) in content.enumerated() where byte == 0x0A {
        lines.append(lineStart..<index)
        lineStart = index + 1
      }
      if lineStart < content.count { lines.append(lineStart..<content.count) }
      for range in lines {
        let line = content[range]
        let text = String(decoding: line, as: UTF8.self)
        texts += 1
        bytes += line.count
        if let features {
          let found = Scorer.features(of: text, bits: features)
          output.append(contentsOf: found.map { "\($0.index):\($0.negative ? "-1" : "1")" }.joined(separator: " ").utf8)
        } else if let model {
          let clock = ContinuousClock.now
          if logit {
            let value = model.logit(text)
            elapsed += ContinuousClock.now - clock
            output.append(contentsOf: "\(value)".utf8)
          } else {
            let value = model.score(text)
            elapsed += ContinuousClock.now - clock
            guard !quiet else { continue }
            output.append(contentsOf: ModerationEngine.scoreText(value).utf8)
            output.append(0x09)
            output.append(contentsOf: line)
          }
        }
        output.append(0x0A)
        if output.count >= 1 << 16 {
          stdout.write(output)
          output.removeAll(keepingCapacity: true)
        }
      }
    }
    if !quiet { stdout.write(output) }
    if quiet {
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      let rate = seconds > 0 ? Double(texts) / seconds : 0
      let megabytes = seconds > 0 ? Double(bytes) / 1e6 / seconds : 0
      FileHandle.standardError.write(
        Data(
          "scored \(texts) texts (\(bytes) bytes) in \(String(format: "%.3f", seconds)) s: \(Int(rate.rounded(.down).clamped)) texts/s, \(String(format: "%.1f", megabytes)) MB/s\n"
            .utf8))
    }
  }
}

extension Double {
  /// This value, kept inside what an Int holds (for printing a rate).
  fileprivate var clamped: Double { isFinite ? min(max(self, 0), 1e15) : 0 }
}
