import CAlsa
import Glibc

/// An ALSA capture device, where the player is heard; owns its `snd_pcm_t`
/// and closes it once.
///
/// Opened like `PCMDevice` (interleaved, float where the device takes it,
/// else S16, monotonic status timestamps), at the rate playback runs at.
/// Reads wait (`snd_pcm_wait`, bounded) for frames: a device that stops
/// delivering is an error after `stallLimitMilliseconds`, never a hang.
/// Only the first channel is kept.
public final class CaptureDevice: @unchecked Sendable {
    public let name: String
    public let rate: SampleRate
    public let periodFrames: Int
    public let bufferFrames: Int
    public let channels: Int
    /// Whether the device gives 32-bit float samples (else signed 16-bit).
    public let givesFloat: Bool
    /// How long a read may wait for frames before the device counts as lost: 2 s, or four buffers if longer.
    public let stallLimitMilliseconds: Int32

    private let pcm: OpaquePointer
    private let statusRecord: OpaquePointer
    private let floats: UnsafeMutablePointer<Float>
    private let shorts: UnsafeMutablePointer<Int16>

    /// Opens `name` for capture at `rate` (the playback device's), with
    /// periods of `periodFrames` and a buffer of `bufferFrames`; the device may
    /// round both. A device that cannot run at `rate` is refused (`-EINVAL`
    /// from `snd_pcm_hw_params_set_rate_near`): its frames would not line up with the clicks.
    public init(name: String, rate requestedRate: SampleRate, periodFrames requestedPeriod: Int? = nil, bufferFrames requestedBuffer: Int? = nil) throws(ALSAError) {
        metronome_alsa_silence_errors()
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        JackMessages.silence()
        try ALSAError.check(opened, "snd_pcm_open")
        guard let pcm = handle else { throw ALSAError(code: -ENODEV, call: "snd_pcm_open") }
        do throws(ALSAError) {
            let hardware = try PCMDevice.configureHardware(pcm, rate: requestedRate, period: requestedPeriod, buffer: requestedBuffer)
            guard hardware.rate == requestedRate.framesPerSecond else {
                throw ALSAError(code: -EINVAL, call: "snd_pcm_hw_params_set_rate_near")
            }
            try Self.configureSoftware(pcm, period: hardware.period)
            var status: OpaquePointer?
            try ALSAError.check(snd_pcm_status_malloc(&status), "snd_pcm_status_malloc")
            statusRecord = status!
            self.pcm = pcm
            self.name = name
            rate = requestedRate
            periodFrames = hardware.period
            bufferFrames = hardware.buffer
            channels = hardware.channels
            givesFloat = hardware.float
            stallLimitMilliseconds = Int32(max(2_000, 4 * Int64(hardware.buffer) * 1_000 / hardware.rate))
            floats = .allocate(capacity: hardware.period * hardware.channels)
            shorts = .allocate(capacity: hardware.period * hardware.channels)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    deinit {
        snd_pcm_close(pcm)
        snd_pcm_status_free(statusRecord)
        floats.deallocate()
        shorts.deallocate()
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
    public func start() -> CaptureError? {
        let started = snd_pcm_start(pcm)
        return started < 0 ? CaptureError(code: started, operation: "snd_pcm_start") : nil
    }

    /// `snd_pcm_readi` until `frames` (at most a period) are read, waiting for
    /// them (`snd_pcm_wait`) at most `stallLimitMilliseconds`; the first
    /// channel goes to `mono`. Allocates nothing and takes no lock.
    public func read(into mono: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        let wanted = min(frames, periodFrames)
        let bytesPerFrame = channels * (givesFloat ? 4 : 2)
        let destination = givesFloat ? UnsafeMutableRawPointer(floats) : UnsafeMutableRawPointer(shorts)
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
    public func status() -> SinkStatus {
        guard snd_pcm_status(pcm, statusRecord) >= 0 else { return SinkStatus(delay: 0, queued: 0, at: nil) }
        let delay = Int64(snd_pcm_status_get_delay(statusRecord))
        let queued = Int64(snd_pcm_status_get_avail(statusRecord))
        var stamp = timespec()
        snd_pcm_status_get_htstamp(statusRecord, &stamp)
        let at = stamp.tv_sec != 0 || stamp.tv_nsec != 0 ? MonotonicInstant(stamp) : nil
        return SinkStatus(delay: delay, queued: queued, at: at)
    }

    /// `snd_pcm_recover`, silently, then `snd_pcm_start`: capture again after `-EPIPE` or `-ESTRPIPE`.
    public func recover(from error: CaptureError) -> CaptureError? {
        let result = snd_pcm_recover(pcm, error.code, 1)
        if result < 0 { return CaptureError(code: result, operation: "snd_pcm_recover") }
        return start()
    }
}

/// What a read came to.
public enum CaptureRead {
    /// This many frames were read.
    case read(Int)
    /// The buffer overflowed (or the device was suspended) before this read: frames were lost.
    case overrun(CaptureError)
    case failed(CaptureError)
}
