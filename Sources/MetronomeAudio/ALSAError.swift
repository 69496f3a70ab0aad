import CAlsa
import Glibc

/// An ALSA failure: the negative errno an ALSA call returned, and `snd_strerror` of it.
/// Thrown while a device is opened; once playing, its failures are `SinkError`s.
package struct ALSAError: Error, CustomStringConvertible, Sendable {
    /// The negative error code, as ALSA returns it (`-EPIPE` for an underrun).
    package let code: Int32
    /// The ALSA call that failed.
    package let call: String

    package init(code: Int32, call: String) {
        self.code = code
        self.call = call
    }

    package var message: String { String(cString: snd_strerror(code)) }
    package var description: String { "\(call): \(message)" }

    /// Returns `result` when it is not negative, else throws it. Every ALSA call goes through here.
    @discardableResult
    package static func check(_ result: Int32, _ call: String) throws(ALSAError) -> Int32 {
        guard result >= 0 else { throw ALSAError(code: result, call: call) }
        return result
    }
}
