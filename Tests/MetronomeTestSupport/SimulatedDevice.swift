import MetronomeSupport
import MetronomeTiming
import MetronomeAudio


/// A clock that moves only when told to (or when something sleeps on it).
package final class ManualClock: Timekeeper, @unchecked Sendable {
    package private(set) var current = MonotonicInstant(nanoseconds: 1_000_000_000)
    package init() {}
    package func now() -> MonotonicInstant { current }
    package func sleep(until instant: MonotonicInstant) { if instant > current { current = instant } }
    package func advance(nanoseconds: Int64) { current = MonotonicInstant(nanoseconds: current.nanoseconds + nanoseconds) }
}

/// A sound card in software: it starts when its buffer is full, then plays
/// `rate` frames a second of the manual clock; a write blocks (moves the
/// clock) while the buffer is full; if it runs dry it underruns and plays
/// silence until the stream is recovered and refilled. What it plays is
/// recorded by device time, as a recorder on its output would hear it.
package final class SimulatedDevice: AudioSink {
    package let rate: SampleRate
    package let periodFrames: Int
    package let bufferFrames: Int
    package let name = "simulated"
    package let clock: ManualClock
    /// Before this write (counted from 0), the process stalls for `stallNanoseconds`.
    package var stallBeforeWrite: Int?
    package var stallNanoseconds: Int64 = 0
    /// Accepts frames at once and reports no delay, like ALSA's null device.
    package var fasterThanRealTime = false
    /// Stops with the process, like ALSA's jack plugin (whose JACK client runs
    /// in it): through a stall it takes nothing and reports nothing, and all
    /// it plays after is heard the stall later. No underrun.
    package var stopsWithProcess = false
    /// Plays on through a stall until its buffer is dry, then waits for more
    /// without an underrun and plays what comes next late, as ALSA's pulse
    /// plugin's server does at times; what it has queued cannot be taken back.
    package var waitsWhenDry = false
    package var takesBackQueuedFrames: Bool { !waitsWhenDry }
    /// Frames a second by which the delay report grows wrong from each start,
    /// as ALSA's pulse plugin's does into pipewire-pulse (about 400); what is
    /// queued stays exact.
    package var delayDriftPerSecond: Int64 = 0
    package var delayReportWanders: Bool { delayDriftPerSecond != 0 }

    package private(set) var recording: [Float] = []
    package private(set) var writes = 0
    private var origin: MonotonicInstant?     // device time zero: the first start
    private var started: MonotonicInstant?    // when the current stream started
    private var streamWritten: Int64 = 0      // frames written since that start (or to the pending start)
    private var streamOffset: Int64 = 0       // the device frame the current stream starts at

    package init(rate: SampleRate, clock: ManualClock, periodFrames: Int = 256, bufferFrames: Int = 512) {
        self.rate = rate
        self.clock = clock
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    package func played(at instant: MonotonicInstant) -> Int64 {
        guard let started else { return 0 }
        return (instant.nanoseconds - started.nanoseconds) * rate.framesPerSecond / 1_000_000_000
    }

    package func write(_ mono: UnsafeMutablePointer<Float>, frames: Int) -> SinkWrite {
        defer { writes += 1 }
        if writes == stallBeforeWrite { stall() }
        if fasterThanRealTime {
            append(mono, frames: frames, at: Int64(recording.count))
            return .written
        }
        if started != nil, played(at: clock.now()) > streamWritten {
            return .underrun(SinkError(code: -32, operation: "snd_pcm_writei"))  // -EPIPE
        }
        if started != nil {
            // Block until the buffer has room for this write.
            let excess = streamWritten + Int64(frames) - played(at: clock.now()) - Int64(bufferFrames)
            if excess > 0 {
                let wait = (excess * 1_000_000_000 + rate.framesPerSecond - 1) / rate.framesPerSecond
                clock.advance(nanoseconds: wait)
            }
        }
        append(mono, frames: frames, at: streamOffset + streamWritten)
        streamWritten += Int64(frames)
        if started == nil, streamWritten >= Int64(bufferFrames) {
            let now = clock.now()
            if origin == nil { origin = now }
            started = now
            streamOffset = (now.nanoseconds - origin!.nanoseconds) * rate.framesPerSecond / 1_000_000_000
            // Move what was queued before the start to where it is heard.
            let queued = Array(recording.suffix(Int(streamWritten)))
            recording.removeLast(Int(streamWritten))
            let pad = Int(streamOffset) - recording.count
            if pad > 0 { recording += [Float](repeating: 0, count: pad) }
            recording += queued
        }
        return .written
    }

    private func stall() {
        if waitsWhenDry, let running = started {
            let queued = streamWritten - played(at: clock.now())
            let queuedNanoseconds = queued * 1_000_000_000 / rate.framesPerSecond
            clock.advance(nanoseconds: stallNanoseconds)
            guard stallNanoseconds > queuedNanoseconds else { return }
            // Dry after what was queued, then silent until the next write.
            let waited = stallNanoseconds - queuedNanoseconds
            started = MonotonicInstant(nanoseconds: running.nanoseconds + waited)
            let lost = waited * rate.framesPerSecond / 1_000_000_000
            recording += [Float](repeating: 0, count: Int(streamOffset + streamWritten) - recording.count)
            streamOffset += lost
            return
        }
        guard stopsWithProcess, let running = started else {
            clock.advance(nanoseconds: stallNanoseconds)
            return
        }
        let played = played(at: clock.now())
        clock.advance(nanoseconds: stallNanoseconds)
        started = MonotonicInstant(nanoseconds: running.nanoseconds + stallNanoseconds)
        // What was queued is heard after the stall, and so is all that follows.
        let lost = stallNanoseconds * rate.framesPerSecond / 1_000_000_000
        recording.insert(contentsOf: [Float](repeating: 0, count: Int(lost)), at: Int(streamOffset + played))
        streamOffset += lost
    }

    package func rewind(upTo frames: Int64) -> Int64 {
        guard started != nil else { return 0 }
        let taken = max(0, min(frames, streamWritten - played(at: clock.now())))
        streamWritten -= taken
        recording.removeLast(Int(taken))
        return taken
    }

    private func append(_ mono: UnsafeMutablePointer<Float>, frames: Int, at position: Int64) {
        let pad = Int(position) - recording.count
        if pad > 0 { recording += [Float](repeating: 0, count: pad) }
        recording += UnsafeBufferPointer(start: mono, count: frames)
    }

    package func status() -> SinkStatus {
        let now = clock.now()
        if fasterThanRealTime { return SinkStatus(delay: 0, queued: 0, at: now) }
        let queued = streamWritten - played(at: now)
        guard let started else { return SinkStatus(delay: queued, queued: queued, at: now) }
        // The pulse plugin's error: a delay report that grows as the stream plays, though the sound does not move.
        let drift = (now.nanoseconds - started.nanoseconds) * delayDriftPerSecond / 1_000_000_000
        return SinkStatus(delay: queued + drift, queued: queued, at: now)
    }

    package func restart() -> SinkError? {
        if started != nil {
            let unplayed = Int(max(0, streamWritten - played(at: clock.now())))
            recording.removeLast(min(unplayed, recording.count))
        }
        started = nil
        streamWritten = 0
        return nil
    }

    package func recover(from error: SinkError) -> SinkError? {
        started = nil
        streamWritten = 0
        return nil
    }

    package func drain() {
        guard started != nil else { return }
        let remaining = streamWritten - played(at: clock.now())
        if remaining > 0 { clock.advance(nanoseconds: remaining * 1_000_000_000 / rate.framesPerSecond) }
    }
}
