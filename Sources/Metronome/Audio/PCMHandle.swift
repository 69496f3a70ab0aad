import CAlsa
import Glibc

/// One open ALSA PCM as both devices use it (`PCMDevice` for playback,
/// `CaptureDevice` for capture): opened non-blocking, interleaved, float
/// where the device takes it (else S16), at the period and buffer it grants.
/// Owns the `snd_pcm_t`, its status record and the scratch its frames are
/// converted in, and closes and frees them once.
final class PCMHandle: @unchecked Sendable {
    let pcm: OpaquePointer
    let rate: Int64
    let periodFrames: Int
    let bufferFrames: Int
    let channels: Int
    /// Whether the device moves 32-bit float samples (else signed 16-bit).
    let float: Bool
    /// How long a transfer may wait for the device before it counts as lost: 2 s, or four buffers if longer.
    let stallLimitMilliseconds: Int32
    /// A period of frames in the device's format and channels.
    let floats: UnsafeMutablePointer<Float>
    let shorts: UnsafeMutablePointer<Int16>
    private let statusRecord: OpaquePointer

    init(name: String, stream: snd_pcm_stream_t, rate: SampleRate, period: Int?, buffer: Int?) throws(ALSAError) {
        metronome_alsa_silence_errors()
        var handle: OpaquePointer?
        // Non-blocking open, so a busy device fails at once instead of waiting.
        let opened = snd_pcm_open(&handle, name, stream, SND_PCM_NONBLOCK)
        JackMessages.silence()
        try ALSAError.check(opened, "snd_pcm_open")
        guard let pcm = handle else { throw ALSAError(code: -ENODEV, call: "snd_pcm_open") }
        let hardware: (rate: Int64, period: Int, buffer: Int, channels: Int, float: Bool)
        var status: OpaquePointer?
        do throws(ALSAError) {
            hardware = try Self.configureHardware(pcm, rate: rate, period: period, buffer: buffer)
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
    func status() -> (delay: Int64, available: Int64, at: MonotonicInstant?)? {
        guard snd_pcm_status(pcm, statusRecord) >= 0 else { return nil }
        var stamp = timespec()
        snd_pcm_status_get_htstamp(statusRecord, &stamp)
        return (Int64(snd_pcm_status_get_delay(statusRecord)), Int64(snd_pcm_status_get_avail(statusRecord)),
                stamp.tv_sec != 0 || stamp.tv_nsec != 0 ? MonotonicInstant(stamp) : nil)
    }

    /// Access, format, channels, rate, buffer and period.
    private static func configureHardware(_ pcm: OpaquePointer, rate: SampleRate, period: Int?, buffer: Int?) throws(ALSAError)
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
            ?? DeviceLatency(serving: snd_pcm_type(pcm) == SND_PCM_TYPE_IOPLUG).frames(at: Int64(actualRate))
        // The buffer first: it is the latency; the period then divides it.
        var bufferTime = UInt32((Int64(max(wanted.buffer, wanted.period * 2)) * 1_000_000 + Int64(actualRate) / 2) / Int64(actualRate))
        try ALSAError.check(snd_pcm_hw_params_set_buffer_time_near(pcm, params, &bufferTime, nil), "snd_pcm_hw_params_set_buffer_time_near")
        // The period in frames: a time rounds through microseconds (256 frames would come back 255).
        var periodRequest = snd_pcm_uframes_t(wanted.period)
        try ALSAError.check(snd_pcm_hw_params_set_period_size_near(pcm, params, &periodRequest, nil), "snd_pcm_hw_params_set_period_size_near")
        try ALSAError.check(snd_pcm_hw_params(pcm, params), "snd_pcm_hw_params")
        // What the device granted, read back: the buffer and period it will really use.
        var periodSize = snd_pcm_uframes_t(0), bufferSize = snd_pcm_uframes_t(0)
        try ALSAError.check(snd_pcm_hw_params_get_period_size(params, &periodSize, nil), "snd_pcm_hw_params_get_period_size")
        try ALSAError.check(snd_pcm_hw_params_get_buffer_size(params, &bufferSize), "snd_pcm_hw_params_get_buffer_size")
        return (Int64(actualRate), Int(periodSize), Int(bufferSize), Int(channels), float)
    }

}

/// A device that owns a `PCMHandle`: its sizes and limits are the handle's.
protocol PCMHandleOwner {
    var handle: PCMHandle { get }
}

extension PCMHandleOwner {
    var pcm: OpaquePointer { handle.pcm }
    var floats: UnsafeMutablePointer<Float> { handle.floats }
    var shorts: UnsafeMutablePointer<Int16> { handle.shorts }
    /// Frames a period, and frames the buffer holds, as the device granted them.
    public var periodFrames: Int { handle.periodFrames }
    public var bufferFrames: Int { handle.bufferFrames }
    public var channels: Int { handle.channels }
    /// How long a read or write may wait before the device counts as lost: 2 s, or four buffers if longer.
    public var stallLimitMilliseconds: Int32 { handle.stallLimitMilliseconds }
}
