import Glibc
import SystemPackage

/// What went wrong with an audio sink, whatever stands behind it (an ALSA
/// device, the tests' simulated one): the negative errno of the failure and
/// the operation that failed. Made on the audio thread, so it holds no more
/// than a code and a literal (nothing allocated); the message is made when asked.
package struct SinkError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The negative errno (`-EPIPE` for an underrun).
    package let code: Int32
    /// The operation that failed (`snd_pcm_writei` on an ALSA device).
    package let operation: String

    package init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// A write that waited for room longer than its bound: the device stopped taking audio.
    package static let stoppedTakingAudio = SinkError(code: -ETIMEDOUT, operation: "wait for room")

    /// The JACK server shut the client down (it quit, or threw the client out).
    package static let serverGone = SinkError(code: -ESHUTDOWN, operation: "JACK")

    package var message: String {
        if self == Self.stoppedTakingAudio { return "it stopped taking audio (the device or its sound server is gone)" }
        if self == Self.serverGone { return "the JACK server shut it down" }
        return Errno(rawValue: -code).description
    }
    package var description: String { "\(operation): \(message)" }
}
