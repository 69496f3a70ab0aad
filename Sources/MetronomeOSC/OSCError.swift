import MetronomeTiming

/// What went wrong opening the OSC server, as the user sees it: one line.
/// The kind says what happened; the command gives each its exit status.
package typealias OSCError = LayerError<OSCFailure>

package enum OSCFailure: Sendable, Equatable {
    /// `--osc-host` names no address of this machine's.
    case badAddress
    /// The port cannot be had: in use, or refused.
    case unavailable
}
