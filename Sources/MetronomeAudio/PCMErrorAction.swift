import Glibc

/// What a negative return code of `snd_pcm_writei`, `snd_pcm_readi` or
/// `snd_pcm_wait` asks of the loop that moves frames; the one place
/// `PCMTransfer` decides it.
package enum PCMErrorAction: Equatable, Sendable {
    /// `-EINTR`: a signal interrupted the call and nothing was lost: call again.
    case retry
    /// `-EAGAIN`: the buffer is full (the stream is non-blocking): wait for room.
    case waitForRoom
    /// `-EPIPE` (the device ran dry) or `-ESTRPIPE` (suspended): `snd_pcm_recover`
    /// brings the stream back, and the engine skips the time it was silent.
    case underrun
    /// Anything else: the device is lost.
    case fail

    package init(code: Int32) {
        switch code {
        case -EINTR: self = .retry
        case -EAGAIN: self = .waitForRoom
        case -EPIPE, -ESTRPIPE: self = .underrun
        default: self = .fail
        }
    }
}
