import MetronomeTiming

/// What went wrong with JACK, as the user sees it: one line naming the
/// server, the port or the library. The session gives each kind its
/// status: a JACK that cannot be had ends the run with 69, a server that
/// went away while it played with 74.
package typealias JackError = LayerError<JackFailure>

package enum JackFailure: Sendable, Equatable {
    /// No JACK server runs under the name asked for (`jack_client_open`
    /// reported `JackServerFailed` or `JackFailure`); none is ever started.
    case serverUnavailable
    /// libjack cannot be loaded: JACK is not installed.
    case libraryMissing
    /// The server refused one of the client's ports (`jack_port_register`).
    case portRegistration
    /// A port cannot be connected where asked: it does not exist, or JACK refused (`jack_connect`).
    case connection
    /// The server refused to start or stop the client's processing (`jack_activate`).
    case activation
    /// Another client is the timebase master, and the role was not to be taken from it.
    case timebaseTaken
    /// The server shut the client down while it ran (`jack_on_info_shutdown`).
    case serverGone
}
