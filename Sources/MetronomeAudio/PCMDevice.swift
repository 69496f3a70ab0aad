import CAlsa
import Glibc
import MetronomeTiming

/// An ALSA playback device; owns its `snd_pcm_t` and closes it once.
///
/// Opened with explicit period and buffer sizes, interleaved access, float
/// samples where the device takes them (else S16), and monotonic status
/// timestamps. Writes wait (`snd_pcm_wait`, bounded) while the buffer is
/// full: a device that stops taking audio (its sound server gone) is an
/// error after `stallLimit`, never a hang.
package final class PCMDevice: AudioSink, PCMHandleOwner, @unchecked Sendable {
    package let name: String
    package let rate: SampleRate
    package let handle: PCMHandle
    /// Whether the device takes 32-bit float samples (else signed 16-bit).
    package var takesFloat: Bool { handle.float }
    /// Whether a sound server stands behind the device: its plugin (ALSA's
    /// jack, pipewire, pulse: an I/O plugin) is the device or ends its chain
    /// (`ServerPlugin`). The server keeps the time, its own thread does the real-time work.
    package var servedBySoundServer: Bool { soundServer != nil }
    /// Which server, when one is: its plugin's kind.
    package var soundServer: SoundServer? { handle.serverPlugin?.server }
    /// Whether the writer should ask for real-time priority: on a card, and in
    /// front of a server that runs its own threads in real time (`SoundServer`).
    package var wantsRealTimeWriter: Bool { soundServer.map(\.wantsRealTimeWriter) ?? true }
    /// The pulse plugin's delay report wanders (into pipewire-pulse, from the buffer plus 5 frames
    /// to plus 2200 and back over 40 s of exact sound); what it has taken does not.
    package var delayReportWanders: Bool { soundServer == .pulse }
    /// The server's period: what its plugin moves at a time, at its rate.
    /// Behind a `rate` plugin, or a `plug` that converts, the plugin's own
    /// period and rate, not the device's; nil for a card.
    package var serverPeriod: (frames: Int64, rate: Int64)? {
        guard let plugin = handle.serverPlugin else { return nil }
        guard let frames = plugin.periodFrames, let rate = plugin.rate, rate > 0 else { return (Int64(periodFrames), self.rate.framesPerSecond) }
        return (Int64(frames), rate)
    }
    /// PipeWire's quantum in the device's frames: its graph, behind the pipewire
    /// plugin, takes one from the stream every cycle, and the period is asked
    /// at the quantum (`DeviceLatency`), so the plugin's period stands for it.
    /// A graph serving a client that asked for less moves smaller quanta, and a
    /// cycle lost there is lost by less than the stall watch looks for. Nil for
    /// the pulse plugin: what it takes goes to the pulse server's own queue,
    /// which a late server fills late while the graph plays on (with the watch
    /// on, an hour under heavy load ends 2460 frames early).
    package var quantumFrames: Int? {
        guard let plugin = handle.serverPlugin, plugin.server == .pipewire else { return nil }
        return plugin.periodFrames(at: rate.framesPerSecond) ?? periodFrames
    }
    /// Whether `rewind` can take back queued frames. Not through ALSA's pulse
    /// plugin: it hands every write to the server at once, and rewinding only
    /// moves its own count, which then disagrees with the server's; the next
    /// writes stall a buffer at a time.
    package let takesBackQueuedFrames: Bool

    /// Opens `name` for playback at `rate` with periods of `periodFrames` and a
    /// buffer of `bufferFrames`; the device may round both (and the rate).
    /// Without sizes, the device's own default (`DeviceLatency`): what a sound
    /// server's plugin can hold, or low latency on a card.
    package init(name: String, rate requestedRate: SampleRate, periodFrames requestedPeriod: Int? = nil, bufferFrames requestedBuffer: Int? = nil) throws(ALSAError) {
        let handle = try PCMHandle(name: name, stream: SND_PCM_STREAM_PLAYBACK, rate: requestedRate, period: requestedPeriod, buffer: requestedBuffer)
        try Self.configureSoftware(handle.pcm, period: handle.periodFrames, buffer: handle.bufferFrames)
        self.handle = handle
        self.name = name
        rate = SampleRate(unchecked: handle.rate)
        takesBackQueuedFrames = handle.serverPlugin?.server != .pulse
    }

    private static func configureSoftware(_ pcm: OpaquePointer, period: Int, buffer: Int) throws(ALSAError) {
        var params: OpaquePointer?
        try ALSAError.check(snd_pcm_sw_params_malloc(&params), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(params) }
        try ALSAError.check(snd_pcm_sw_params_current(pcm, params), "snd_pcm_sw_params_current")
        // Start once the buffer is full; wake when a period is free.
        try ALSAError.check(snd_pcm_sw_params_set_start_threshold(pcm, params, snd_pcm_uframes_t(buffer)), "snd_pcm_sw_params_set_start_threshold")
        try ALSAError.check(snd_pcm_sw_params_set_avail_min(pcm, params, snd_pcm_uframes_t(period)), "snd_pcm_sw_params_set_avail_min")
        try ALSAError.check(snd_pcm_sw_params_set_tstamp_mode(pcm, params, SND_PCM_TSTAMP_ENABLE), "snd_pcm_sw_params_set_tstamp_mode")
        try ALSAError.check(snd_pcm_sw_params_set_tstamp_type(pcm, params, SND_PCM_TSTAMP_TYPE_MONOTONIC), "snd_pcm_sw_params_set_tstamp_type")
        try ALSAError.check(snd_pcm_sw_params(pcm, params), "snd_pcm_sw_params")
    }

    /// Converts to the device's format and channel count, then `snd_pcm_writei` until all is written.
    package func write(_ mono: UnsafeMutablePointer<Float>, frames: Int) -> SinkWrite {
        let source: UnsafeRawPointer
        if takesFloat {
            for frame in 0..<frames {
                for channel in 0..<channels { floats[frame * channels + channel] = mono[frame] }
            }
            source = UnsafeRawPointer(floats)
        } else {
            SampleConversion.int16(from: mono, to: shorts, count: frames)
            // Widen to the device's channels in place, from the end so nothing is overwritten early.
            if channels > 1 {
                for frame in (0..<frames).reversed() {
                    for channel in 0..<channels { shorts[frame * channels + channel] = shorts[frame] }
                }
            }
            source = UnsafeRawPointer(shorts)
        }
        let bytesPerFrame = channels * (takesFloat ? 4 : 2)
        let outcome = PCMTransfer.move(frames, on: pcm, stallLimitMilliseconds: stallLimitMilliseconds, operation: "snd_pcm_writei") { done, remaining in
            snd_pcm_writei(pcm, source + done * bytesPerFrame, snd_pcm_uframes_t(remaining))
        }
        switch outcome {
        case .done: break
        // Full for longer than the bound: the device stopped taking audio.
        case .stalled: return .failed(.stoppedTakingAudio)
        case .xrun(let code, let operation): return .underrun(SinkError(code: code, operation: operation))
        case .failed(let code, let operation): return .failed(SinkError(code: code, operation: operation))
        }
        return .written
    }

    /// `snd_pcm_status`: the delay, the frames queued (the buffer less what is
    /// available) and the monotonic timestamp they were taken at.
    package func status() -> SinkStatus {
        guard let status = handle.status() else { return SinkStatus(delay: 0, queued: 0, at: nil) }
        return SinkStatus(delay: status.delay, queued: max(0, Int64(bufferFrames) - status.available), at: status.at)
    }

    /// `snd_pcm_rewind` over what `snd_pcm_rewindable` says may still be taken
    /// back; nothing on a device that cannot take frames back.
    package func rewind(upTo frames: Int64) -> Int64 {
        guard takesBackQueuedFrames else { return 0 }
        let rewindable = Int64(snd_pcm_rewindable(pcm))
        guard rewindable > 0, frames > 0 else { return 0 }
        return max(0, Int64(snd_pcm_rewind(pcm, snd_pcm_uframes_t(min(rewindable, frames)))))
    }

    /// `snd_pcm_recover`, silently: prepares the stream again after `-EPIPE` or `-ESTRPIPE`.
    package func recover(from error: SinkError) -> SinkError? {
        let result = snd_pcm_recover(pcm, error.code, 1)
        return result < 0 ? SinkError(code: result, operation: "snd_pcm_recover") : nil
    }

    /// `snd_pcm_drop` then `snd_pcm_prepare`: what is queued is thrown away, and the stream starts again at the next writes.
    package func restart() -> SinkError? {
        let dropped = snd_pcm_drop(pcm)
        if dropped < 0 { return SinkError(code: dropped, operation: "snd_pcm_drop") }
        let prepared = snd_pcm_prepare(pcm)
        return prepared < 0 ? SinkError(code: prepared, operation: "snd_pcm_prepare") : nil
    }

    /// `snd_pcm_drain`: returns once everything written has played (or the
    /// device stops taking it for `stallLimit`).
    package func drain() {
        // Non-blocking, the drain starts and returns at once; wait for the stream to leave DRAINING.
        guard snd_pcm_drain(pcm) == -EAGAIN else { return }
        var waited: Int32 = 0
        while snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING, waited < stallLimitMilliseconds {
            if snd_pcm_wait(pcm, 10) < 0 { return }
            waited += 10
        }
    }
}
