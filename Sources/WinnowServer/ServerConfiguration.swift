import Foundation
import Logging
import Winnow
@_spi(Tools) import WinnowStore

/// How `winnow serve` listens and what it accepts.
public struct ServerConfiguration: Sendable {
  /// The address to bind (`127.0.0.1` by default: put a proxy in front to serve others).
  public var host = "127.0.0.1"
  /// The port; 0 picks a free one (reported to ``WinnowHTTPServer/run(onListening:)``).
  public var port = 8080
  /// Event-loop threads (default: one per core); the loops live as long as the process, and
  /// later servers with the same count share them.
  public var threads = ProcessInfo.processInfo.activeProcessorCount
  /// The largest request body read, in bytes; a longer one is refused with 413.
  public var maximumBodyBytes = 4 << 20
  /// The bearer token of the admin endpoints (`/admin/reload`, `/v1/status`); without one they
  /// answer only on loopback.
  public var adminToken: String?
  /// Whether `/v1/moderate` also needs the admin bearer token.
  public var moderateNeedsToken = false
  /// How far a signature's timestamp may be from now, in seconds; within it, a signature (its
  /// app, nonce and timestamp) is accepted once, at whichever endpoint comes first. 0 accepts
  /// any time and repeats (for fixed test signatures only).
  public var signatureWindowSeconds: Int64 = 300
  /// What a signed message callback whose message cannot be read is answered (the platform
  /// delivers on any error answer, so an error would pass it).
  public var callbackOnError = CallbackErrorPolicy.block
  /// How often the list files are looked at for changes made by another process (another
  /// server on the same directory, `winnow words`, an editor); zero: only on `SIGHUP` and
  /// `/admin/reload`. A change is enforced within this and the time to compile it.
  public var listWatchInterval: Duration = .milliseconds(500)
  /// How long a connection may sit idle (no request, or a request head not yet complete)
  /// before it is closed.
  public var idleTimeout: Duration = .seconds(30)
  /// How long a request body may take to arrive in full; a slower one gets 408.
  public var bodyTimeout: Duration = .seconds(30)
  /// The most connections open at once; past it new ones wait in the listen queue until one
  /// closes. Nil: 3/4 of the process's open-file limit, at least 64 (a server that ran out of
  /// descriptors spun on `accept` and could not answer its health check).
  public var maximumConnections: Int? = nil
  /// The most lines of one NDJSON request; a longer one gets 413 before any is moderated.
  public var maximumBatchLines = 10_000
  /// The most bytes of an NDJSON answer; past it the request gets 413.
  public var maximumAnswerBytes = 32 << 20
  /// Most items of one NDJSON batch moderated at once (reviewer calls overlap up to this).
  public var batchConcurrency = 16
  /// This server's name in the audit log of list changes (default: `HOST:PID`).
  public var replica = ProcessInfo.processInfo.hostName + ":" + String(ProcessInfo.processInfo.processIdentifier)
  /// The PostgreSQL store the app lists are in, shared with other replicas; nil: the service's
  /// app directory (the file store).
  @_spi(Tools) public var store: StoreReplica?
  /// Repeat offenders: the policy, the events file and the platform calls.
  public var offenders = OffenderConfiguration()
  /// How many of the last blocked, replaced and flagged items the console shows (kept in
  /// memory only, never on disk); 0 keeps none and no per-minute counts either.
  public var recentDecisions = 200
  /// The log.
  public var logger = Logger(label: "winnow.serve")

  /// The defaults.
  public init() {}

}

/// The answer to a signed message callback whose message cannot be read or moderated.
public enum CallbackErrorPolicy: String, Sendable, CaseIterable {
  /// `{"pass":1}`: deliver it.
  case pass
  /// `{"pass":0,"extra":"unreadable"}`: block it.
  case block
}
