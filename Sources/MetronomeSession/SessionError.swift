import MetronomeAudio
import MetronomeTiming

/// What went wrong putting a run together or running it, as the user sees it:
/// one line naming what failed. The kind says what happened; the command gives
/// each kind its exit status (`CommandFailure`).
package typealias SessionError = LayerError<SessionFailure>

package enum SessionFailure: Sendable, Equatable {
    /// The run asked for cannot be had as asked: options that do not go
    /// together, a name that cannot be used.
    case badRequest
    /// An input file (a tempo map, a setlist, a song's file) cannot be read.
    case unreadable
    /// An audio device, output or input, cannot be opened.
    case deviceUnavailable
    /// JACK cannot be had: no server, no libjack, a port refused or not there to connect to.
    case jackUnavailable
    /// The Ableton Link session cannot be joined.
    case linkUnavailable
    /// The practice inspector cannot listen: aubio is missing or refuses the rate.
    case cannotListen
    /// `--calibrate` heard nothing back, or too unevenly to keep.
    case calibrationFailed
    /// An audio device, output or input, failed while the run played.
    case deviceFailed
    /// A file to write (the trace, the saved round trips) cannot be created.
    case cannotCreate
    /// A file being written failed midway (a full disk, a reader gone).
    case writeFailed
}

extension LayerError where Kind == SessionFailure {
    package static func badRequest(_ message: String) -> SessionError { SessionError(.badRequest, message) }

    /// A JACK failure as the run's: a server gone while the run played is a
    /// failed device; any other, JACK unavailable. The message is JACK's line.
    package init(_ jack: JackError) {
        self.init(jack.kind == .serverGone ? .deviceFailed : .jackUnavailable, jack.message)
    }
}
