import Glibc
import SystemPackage

/// What went wrong reading a capture device once it runs: the negative errno
/// of the failure and the operation that failed. Made on the capture thread,
/// so it holds no more than a code and a literal (nothing allocated); the
/// message is made when asked. While the device opens, failures are `ALSAError`s.
package struct CaptureError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The negative errno (`-EPIPE` for an overrun).
    package let code: Int32
    /// The operation that failed (`snd_pcm_readi`).
    package let operation: String

    package init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// A read that waited for frames longer than its bound: the device stopped delivering audio.
    package static let stoppedDeliveringAudio = CaptureError(code: -ETIMEDOUT, operation: "wait for input")

    package var message: String {
        if self == Self.stoppedDeliveringAudio { return "it stopped delivering audio (the device or its sound server is gone)" }
        return Errno(rawValue: -code).description
    }
    package var description: String { "\(operation): \(message)" }
}
