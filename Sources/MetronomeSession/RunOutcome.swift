/// How a run ended that did not fail: played or rendered to its end (or
/// quit), or stopped by a signal, cleaned up. The command makes the exit
/// status of it (`CommandFailure`).
package enum RunOutcome: Sendable, Equatable {
    case finished
    /// A signal that asks to stop (SIGINT, SIGTERM, SIGHUP ...), by its number.
    case stoppedBy(signal: Int32)
}
