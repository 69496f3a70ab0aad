import CAlsa

/// The loop that moves frames through a running PCM, the same for playback
/// (`snd_pcm_writei`) and capture (`snd_pcm_readi`): it calls the transfer
/// until every frame is moved, retries after a signal, and waits for the
/// device (`snd_pcm_wait`) when it has no room or nothing to give, but not
/// for ever. Run on the audio and capture threads: it allocates nothing.
package enum PCMTransfer {
    /// How the loop ended.
    package enum Outcome: Equatable {
        /// Every frame moved.
        case done
        /// The device gave no room or no frames within the stall limit.
        case stalled
        /// An underrun or overrun (`-EPIPE`) or a suspend: the stream needs `snd_pcm_recover`.
        case xrun(code: Int32, operation: String)
        /// The device is lost.
        case failed(code: Int32, operation: String)
    }

    /// Moves `frames` frames: `transfer(done, remaining)` moves up to `remaining`
    /// frames from frame `done` and returns how many, or a negative errno named `operation`.
    package static func move(_ frames: Int, on pcm: OpaquePointer, stallLimitMilliseconds: Int32, operation: String,
                     _ transfer: (_ done: Int, _ remaining: Int) -> Int) -> Outcome {
        var done = 0
        while done < frames {
            let result = transfer(done, frames - done)
            if result >= 0 {
                done += result
                continue
            }
            let code = Int32(result)
            switch PCMErrorAction(code: code) {
            case .retry:
                continue
            case .waitForRoom:
                let ready = snd_pcm_wait(pcm, stallLimitMilliseconds)
                if ready == 0 { return .stalled }
                guard ready < 0 else { continue }
                switch PCMErrorAction(code: ready) {
                case .retry, .waitForRoom: continue
                case .underrun: return .xrun(code: ready, operation: "snd_pcm_wait")
                case .fail: return .failed(code: ready, operation: "snd_pcm_wait")
                }
            case .underrun:
                return .xrun(code: code, operation: operation)
            case .fail:
                return .failed(code: code, operation: operation)
            }
        }
        return .done
    }
}
