import Glibc
import SystemPackage

/// What went wrong reading a capture device once it runs: the negative errno
/// of the failure and the operation that failed. Made on the capture thread,
/// so it holds no more than a code and a literal (nothing allocated); the
/// message is made when asked. While the device opens, failures are `ALSAError`s.
public struct CaptureError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The negative errno (`-EPIPE` for an overrun).
    public let code: Int32
    /// The operation that failed (`snd_pcm_readi`).
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// A read that waited for frames longer than its bound: the device stopped delivering audio.
    public static let stoppedDeliveringAudio = CaptureError(code: -ETIMEDOUT, operation: "wait for input")

    public var message: String {
        if self == Self.stoppedDeliveringAudio { return "it stopped delivering audio (the device or its sound server is gone)" }
        return Errno(rawValue: -code).description
    }
    public var description: String { "\(operation): \(message)" }
}
