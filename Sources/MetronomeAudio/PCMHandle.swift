import CAlsa
import Glibc
import MetronomeSupport
import MetronomeTiming

/// One open ALSA PCM as both devices use it (`PCMDevice` for playback,
/// `CaptureDevice` for capture): opened non-blocking, interleaved, float
/// where the device takes it (else S16), at the period and buffer it grants.
/// Owns the `snd_pcm_t`, its status record and the scratch its frames are
/// converted in, and closes and frees them once.
package final class PCMHandle: @unchecked Sendable {
    package let pcm: OpaquePointer
    package let rate: Int64
    package let periodFrames: Int
    package let bufferFrames: Int
    package let channels: Int
    /// Whether the device moves 32-bit float samples (else signed 16-bit).
    package let float: Bool
    /// The sound server's plugin anywhere in the device's chain, as set up; nil for a card.
    package let serverPlugin: ServerPlugin?
    /// How long a transfer may wait for the device before it counts as lost: 2 s, or four buffers if longer.
    package let stallLimitMilliseconds: Int32
    /// A period of frames in the device's format and channels.
    package let floats: UnsafeMutablePointer<Float>
    package let shorts: UnsafeMutablePointer<Int16>
    private let statusRecord: OpaquePointer

    package init(name: String, stream: snd_pcm_stream_t, rate: SampleRate, period: Int?, buffer: Int?) throws(ALSAError) {
        metronome_alsa_silence_errors()
        var handle: OpaquePointer?
        // Non-blocking open, so a busy device fails at once instead of waiting.
        let opened = snd_pcm_open(&handle, name, stream, SND_PCM_NONBLOCK)
        JackMessages.silence()
        try ALSAError.check(opened, "snd_pcm_open")
        guard let pcm = handle else { throw ALSAError(code: -ENODEV, call: "snd_pcm_open") }
        let hardware: (rate: Int64, period: Int, buffer: Int, channels: Int, float: Bool)
        var status: OpaquePointer?
        let outermostIsIOPlugin = snd_pcm_type(pcm) == SND_PCM_TYPE_IOPLUG
        do throws(ALSAError) {
            // The chain is known before the setup: a server behind it needs a server's latency.
            let serving = ServerPlugin(dump: try Self.dump(pcm), outermostIsIOPlugin: outermostIsIOPlugin) != nil
            hardware = try Self.configureHardware(pcm, rate: rate, period: period, buffer: buffer, serving: serving)
            serverPlugin = ServerPlugin(dump: try Self.dump(pcm), outermostIsIOPlugin: outermostIsIOPlugin)
            try ALSAError.check(snd_pcm_status_malloc(&status), "snd_pcm_status_malloc")
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
        self.pcm = pcm
        statusRecord = status!
        self.rate = hardware.rate
        periodFrames = hardware.period
        bufferFrames = hardware.buffer
        channels = hardware.channels
        float = hardware.float
        stallLimitMilliseconds = Int32(max(2_000, 4 * Int64(hardware.buffer) * 1_000 / hardware.rate))
        floats = .allocate(capacity: hardware.period * hardware.channels)
        shorts = .allocate(capacity: hardware.period * hardware.channels)
    }

    deinit {
        snd_pcm_close(pcm)
        snd_pcm_status_free(statusRecord)
        floats.deallocate()
        shorts.deallocate()
    }

    /// `snd_pcm_status`: the delay, the frames available (room to write, or frames to read),
    /// and the monotonic instant that was true at; nil when the call fails.
    package func status() -> (delay: Int64, available: Int64, at: MonotonicInstant?)? {
        guard snd_pcm_status(pcm, statusRecord) >= 0 else { return nil }
        var stamp = timespec()
        snd_pcm_status_get_htstamp(statusRecord, &stamp)
        return (Int64(snd_pcm_status_get_delay(statusRecord)), Int64(snd_pcm_status_get_avail(statusRecord)),
                stamp.tv_sec != 0 || stamp.tv_nsec != 0 ? MonotonicInstant(stamp) : nil)
    }

    /// Access, format, channels, rate, buffer and period.
    private static func configureHardware(_ pcm: OpaquePointer, rate: SampleRate, period: Int?, buffer: Int?, serving: Bool) throws(ALSAError)
        -> (rate: Int64, period: Int, buffer: Int, channels: Int, float: Bool) {
        var params: OpaquePointer?
        try ALSAError.check(snd_pcm_hw_params_malloc(&params), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(params) }
        try ALSAError.check(snd_pcm_hw_params_any(pcm, params), "snd_pcm_hw_params_any")
        try ALSAError.check(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        var float = true
        if snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_FLOAT_LE) < 0 {
            float = false
            try ALSAError.check(snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format")
        }
        var channels: UInt32 = 1
        try ALSAError.check(snd_pcm_hw_params_set_channels_near(pcm, params, &channels), "snd_pcm_hw_params_set_channels_near")
        var actualRate = UInt32(rate.framesPerSecond)
        try ALSAError.check(snd_pcm_hw_params_set_rate_near(pcm, params, &actualRate, nil), "snd_pcm_hw_params_set_rate_near")
        let wanted = period.map { (period: $0, buffer: buffer ?? $0 * 2) }
            ?? DeviceLatency(serving: serving).frames(at: Int64(actualRate))
        // A rate converted in front of JACK (`plug` at 44.1 kHz over JACK at
        // 48), whose periods are whole cycles, refuses some sizes that stand
        // for them (alsa-lib's search for 941-frame periods finds none, though
        // 940 would do): there a server's default falls back to a card's.
        let fallback = period == nil && serving ? [Latency.standardFrames()] : []
        var unsized: OpaquePointer?
        try ALSAError.check(snd_pcm_hw_params_malloc(&unsized), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(unsized) }
        snd_pcm_hw_params_copy(unsized, params)
        var failure = setSizes(pcm, params, wanted, rate: Int64(actualRate))
        for sizes in fallback where failure != nil {
            snd_pcm_hw_params_copy(params, unsized)
            failure = setSizes(pcm, params, sizes, rate: Int64(actualRate))
        }
        if let failure { throw failure }
        // What the device granted, read back: the buffer and period it will really use.
        var periodSize = snd_pcm_uframes_t(0), bufferSize = snd_pcm_uframes_t(0)
        try ALSAError.check(snd_pcm_hw_params_get_period_size(params, &periodSize, nil), "snd_pcm_hw_params_get_period_size")
        try ALSAError.check(snd_pcm_hw_params_get_buffer_size(params, &bufferSize), "snd_pcm_hw_params_get_buffer_size")
        return (Int64(actualRate), Int(periodSize), Int(bufferSize), Int(channels), float)
    }

    /// Asks for `sizes` and installs the setup (`snd_pcm_hw_params`); the first failure, if any.
    private static func setSizes(_ pcm: OpaquePointer, _ params: OpaquePointer?, _ sizes: (period: Int, buffer: Int), rate: Int64) -> ALSAError? {
        // The buffer first: it is the latency; the period then divides it.
        var bufferTime = UInt32((Int64(max(sizes.buffer, sizes.period * 2)) * 1_000_000 + rate / 2) / rate)
        // The period in frames: a time rounds through microseconds (256 frames would come back 255).
        var period = snd_pcm_uframes_t(sizes.period)
        do throws(ALSAError) {
            try ALSAError.check(snd_pcm_hw_params_set_buffer_time_near(pcm, params, &bufferTime, nil), "snd_pcm_hw_params_set_buffer_time_near")
            try ALSAError.check(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, nil), "snd_pcm_hw_params_set_period_size_near")
            try ALSAError.check(snd_pcm_hw_params(pcm, params), "snd_pcm_hw_params")
            return nil
        } catch {
            return error
        }
    }

    /// `snd_pcm_dump`: the chain of plugins, each by name (an I/O plugin names
    /// its server: "ALSA <-> PulseAudio PCM I/O Plugin"), with each one's setup once there is one.
    private static func dump(_ pcm: OpaquePointer) throws(ALSAError) -> String {
        var opened: OpaquePointer?
        try ALSAError.check(snd_output_buffer_open(&opened), "snd_output_buffer_open")
        guard let output = opened else { throw ALSAError(code: -ENOMEM, call: "snd_output_buffer_open") }
        defer { snd_output_close(output) }
        try ALSAError.check(snd_pcm_dump(pcm, output), "snd_pcm_dump")
        var text: UnsafeMutablePointer<CChar>?
        let length = snd_output_buffer_string(output, &text)
        guard let text, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

}

/// A device that owns a `PCMHandle`: its sizes and limits are the handle's.
package protocol PCMHandleOwner {
    var handle: PCMHandle { get }
}

extension PCMHandleOwner {
    package var pcm: OpaquePointer { handle.pcm }
    package var floats: UnsafeMutablePointer<Float> { handle.floats }
    package var shorts: UnsafeMutablePointer<Int16> { handle.shorts }
    /// Frames a period, and frames the buffer holds, as the device granted them.
    package var periodFrames: Int { handle.periodFrames }
    package var bufferFrames: Int { handle.bufferFrames }
    package var channels: Int { handle.channels }
    /// How long a read or write may wait before the device counts as lost: 2 s, or four buffers if longer.
    package var stallLimitMilliseconds: Int32 { handle.stallLimitMilliseconds }
}
