import CAlsa
import Glibc
import MetronomeTiming
import MetronomeAudio

/// An ALSA capture device, where the player is heard; owns its `snd_pcm_t`
/// and closes it once.
///
/// Opened like `PCMDevice` (interleaved, float where the device takes it,
/// else S16, monotonic status timestamps), at the rate playback runs at.
/// Reads wait (`snd_pcm_wait`, bounded) for frames: a device that stops
/// delivering is an error after `stallLimitMilliseconds`, never a hang.
/// Only the first channel is kept.
package final class CaptureDevice: PCMHandleOwner, @unchecked Sendable {
    package let name: String
    package let rate: SampleRate
    package let handle: PCMHandle
    /// Whether the device gives 32-bit float samples (else signed 16-bit).
    package var givesFloat: Bool { handle.float }

    /// Opens `name` for capture at `rate` (the playback device's), with
    /// periods of `periodFrames` and a buffer of `bufferFrames`; the device may
    /// round both. A device that cannot run at `rate` is refused (`-EINVAL`
    /// from `snd_pcm_hw_params_set_rate_near`): its frames would not line up with the clicks.
    package init(name: String, rate requestedRate: SampleRate, periodFrames requestedPeriod: Int? = nil, bufferFrames requestedBuffer: Int? = nil) throws(ALSAError) {
        let handle = try PCMHandle(name: name, stream: SND_PCM_STREAM_CAPTURE, rate: requestedRate, period: requestedPeriod, buffer: requestedBuffer)
        guard handle.rate == requestedRate.framesPerSecond else {
            throw ALSAError(code: -EINVAL, call: "snd_pcm_hw_params_set_rate_near")
        }
        try Self.configureSoftware(handle.pcm, period: handle.periodFrames)
        self.handle = handle
        self.name = name
        rate = requestedRate
    }

    private static func configureSoftware(_ pcm: OpaquePointer, period: Int) throws(ALSAError) {
        var params: OpaquePointer?
        try ALSAError.check(snd_pcm_sw_params_malloc(&params), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(params) }
        try ALSAError.check(snd_pcm_sw_params_current(pcm, params), "snd_pcm_sw_params_current")
        // Started by `start()`, not by a read; wake when a period is there.
        try ALSAError.check(snd_pcm_sw_params_set_start_threshold(pcm, params, snd_pcm_uframes_t(Int32.max)), "snd_pcm_sw_params_set_start_threshold")
        try ALSAError.check(snd_pcm_sw_params_set_avail_min(pcm, params, snd_pcm_uframes_t(period)), "snd_pcm_sw_params_set_avail_min")
        try ALSAError.check(snd_pcm_sw_params_set_tstamp_mode(pcm, params, SND_PCM_TSTAMP_ENABLE), "snd_pcm_sw_params_set_tstamp_mode")
        try ALSAError.check(snd_pcm_sw_params_set_tstamp_type(pcm, params, SND_PCM_TSTAMP_TYPE_MONOTONIC), "snd_pcm_sw_params_set_tstamp_type")
        try ALSAError.check(snd_pcm_sw_params(pcm, params), "snd_pcm_sw_params")
    }

    /// `snd_pcm_start`: capture begins now.
    package func start() -> CaptureError? {
        let started = snd_pcm_start(pcm)
        return started < 0 ? CaptureError(code: started, operation: "snd_pcm_start") : nil
    }

    /// `snd_pcm_readi` until `frames` (at most a period) are read, waiting for
    /// them (`snd_pcm_wait`) at most `stallLimitMilliseconds`; the first
    /// channel goes to `mono`. Allocates nothing and takes no lock.
    package func read(into mono: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        let wanted = min(frames, periodFrames)
        let bytesPerFrame = channels * (givesFloat ? 4 : 2)
        let destination = givesFloat ? UnsafeMutableRawPointer(floats) : UnsafeMutableRawPointer(shorts)
        // A plugin may count frames it never wrote (ALSA's `null`): those are silence, not what the buffer held.
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: wanted * bytesPerFrame)
        let outcome = PCMTransfer.move(wanted, on: pcm, stallLimitMilliseconds: stallLimitMilliseconds, operation: "snd_pcm_readi") { done, remaining in
            snd_pcm_readi(pcm, destination + done * bytesPerFrame, snd_pcm_uframes_t(remaining))
        }
        switch outcome {
        case .done: break
        // Nothing for longer than the bound: the device stopped delivering audio.
        case .stalled: return .failed(.stoppedDeliveringAudio)
        case .xrun(let code, let operation): return .overrun(CaptureError(code: code, operation: operation))
        case .failed(let code, let operation): return .failed(CaptureError(code: code, operation: operation))
        }
        if givesFloat {
            for frame in 0..<wanted { mono[frame] = floats[frame * channels] }
        } else {
            for frame in 0..<wanted { mono[frame] = Float(shorts[frame * channels]) / 32_768 }
        }
        return .read(wanted)
    }

    /// `snd_pcm_status` after a read: the frames captured and not yet read
    /// (`delay`) and the monotonic instant that was true at. The newest frame
    /// taken is the frames read so far plus `delay`.
    package func status() -> SinkStatus {
        guard let status = handle.status() else { return SinkStatus(delay: 0, queued: 0, at: nil) }
        return SinkStatus(delay: status.delay, queued: status.available, at: status.at)
    }

    /// `snd_pcm_recover`, silently, then `snd_pcm_start`: capture again after `-EPIPE` or `-ESTRPIPE`.
    package func recover(from error: CaptureError) -> CaptureError? {
        let result = snd_pcm_recover(pcm, error.code, 1)
        if result < 0 { return CaptureError(code: result, operation: "snd_pcm_recover") }
        return start()
    }
}

/// What a read came to.
package enum CaptureRead {
    /// This many frames were read.
    case read(Int)
    /// The buffer overflowed (or the device was suspended) before this read: frames were lost.
    case overrun(CaptureError)
    case failed(CaptureError)
}
