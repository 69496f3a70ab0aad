import MetronomeSupport
import MetronomeTiming

/// Where the audio thread sends frames: an ALSA device, or nothing at all.
/// Its failures are `SinkError`s, whatever stands behind it.
package protocol AudioSink: AnyObject {
    var rate: SampleRate { get }
    /// Frames the audio thread renders and writes at a time.
    var periodFrames: Int { get }
    /// Frames the device can hold; how far ahead of the ear writing may run.
    var bufferFrames: Int { get }
    /// A name for messages (`default`, `hw:0`, `none`).
    var name: String { get }

    /// Writes `frames` mono samples, blocking while the device is full.
    /// Must not allocate or lock: it runs on the audio thread.
    func write(_ mono: UnsafeMutablePointer<Float>, frames: Int) -> SinkWrite

    /// Frames written but not yet heard, frames still queued, and when that was true.
    func status() -> SinkStatus

    /// Takes back up to `frames` of what was written and not yet played (the
    /// newest first); returns how many it took back. Only the audio thread calls it.
    func rewind(upTo frames: Int64) -> Int64

    /// Brings the stream back after an underrun or suspend.
    func recover(from error: SinkError) -> SinkError?

    /// Whether `rewind` can take back what is queued. A device that cannot
    /// (ALSA's pulse plugin hands each write to its server at once) is
    /// restarted instead when the process was stopped longer than its buffer lasts.
    var takesBackQueuedFrames: Bool { get }

    /// Drops everything queued and prepares the stream to start again.
    func restart() -> SinkError?

    /// Whether the delay report wanders while the sound does not move (ALSA's
    /// pulse plugin: by tens of milliseconds over seconds), so the frame heard is
    /// found from the frames taken instead, less a steady server latency.
    var delayReportWanders: Bool { get }

    /// Frames a sound server's graph moves at a time, when the device stands for
    /// one whose graph may skip cycles without an underrun reaching us
    /// (PipeWire through its own plugin); nil for a card, JACK or pulse. `StallWatch`
    /// counts half of it as lost time.
    var quantumFrames: Int? { get }

    /// Blocks until every written frame has been played.
    func drain()
}

/// The device's state after a write, from `snd_pcm_status`.
package struct SinkStatus: Sendable {
    /// Frames written but not yet heard: the queue and whatever lies beyond it (a sound server's own latency).
    package var delay: Int64
    /// Frames written and not yet taken by the device (`buffer − avail`).
    package var queued: Int64
    /// When it was true; nil if the device does not say.
    package var at: MonotonicInstant?

    package init(delay: Int64, queued: Int64, at: MonotonicInstant?) {
        self.delay = delay
        self.queued = queued
        self.at = at
    }
}

/// What a write came to.
package enum SinkWrite {
    case written
    /// The device ran dry (or was suspended) before this write; nothing of it was played.
    case underrun(SinkError)
    case failed(SinkError)
}

/// A sink with no device behind it: accepts every frame at once.
/// The engine paces itself by the monotonic clock, so time still passes normally.
package final class SilentSink: AudioSink {
    package let rate: SampleRate
    package let periodFrames: Int
    package let bufferFrames: Int
    package let name = "none"
    /// 4096 frames (85 ms at 48 kHz): nothing is heard, the picture
    /// extrapolates between periods, and fewer wakeups cost less CPU.
    package static let standardPeriod = 4096

    package init(rate: SampleRate, periodFrames: Int = 256) {
        self.rate = rate
        self.periodFrames = periodFrames
        bufferFrames = periodFrames * 2
    }

    package func write(_ mono: UnsafeMutablePointer<Float>, frames: Int) -> SinkWrite { .written }
    /// A whole buffer, as a device that is kept full reports: the engine writes
    /// a period ahead and paces itself a period behind, so a frame written now
    /// is heard two periods later, and the heard frames lie on one straight
    /// line from frame 0 at the start (no step at each period).
    package func status() -> SinkStatus { SinkStatus(delay: Int64(bufferFrames), queued: Int64(bufferFrames), at: nil) }
    package func rewind(upTo frames: Int64) -> Int64 { 0 }
    package func recover(from error: SinkError) -> SinkError? { nil }
    package var takesBackQueuedFrames: Bool { true }
    package func restart() -> SinkError? { nil }
    package func drain() {}
}

package extension AudioSink {
    var delayReportWanders: Bool { false }
    var quantumFrames: Int? { nil }
}
