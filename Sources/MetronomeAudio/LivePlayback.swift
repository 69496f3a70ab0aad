import Glibc
import Synchronization
import MetronomeSupport
import MetronomeTiming
import MetronomeLink

/// Plays a click track through a sink on a dedicated audio thread.
///
/// The thread renders a period, writes it (blocking on the device), then
/// publishes the audible position; it allocates nothing, takes no locks and
/// does no I/O but the sink's. The beat grid follows real time: time a device
/// lost (an underrun, or a stall no error reported, `StallWatch`) is skipped,
/// so late clicks are dropped rather than played late. A sink that takes
/// frames faster than real time (no device, ALSA `null`) is paced by the clock.
package final class LivePlayback: ClickPlayer, @unchecked Sendable {
    package let track: ClickTrack
    package let sink: any AudioSink
    package let position: AudiblePosition
    /// Frames over which a stop fades to silence (5 ms).
    package var fadeFrames: Int64 { fade.frames }

    private let clock: any Timekeeper
    private let stopRequested = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let underrunCount = Atomic<Int>(0)
    private let failureCode = Atomic<Int32>(0)
    private let block: UnsafeMutablePointer<Float>
    /// Practice commands from the main thread, applied before each block.
    private let commands = LockFreeQueue<PracticeCommand>(capacity: 256)
    private var thread: pthread_t?
    /// The Ableton Link session that places the beats, if the run joined one.
    package let link: LinkConductor?
    /// Where each block played is recorded, for the practice inspector.
    private let played: PlayedAudio?
    /// Whether `start()` asks for real-time priority.
    private let priority: WriterPriority

    /// Where a stop ends, and its fade; for a `--duration` track, at its last frame.
    private var fade: StopFade

    /// `position` is where the frame heard is published (one made here unless the caller
    /// needs it first, as the practice inspector does).
    package init(track: ClickTrack, sink: any AudioSink, clock: any Timekeeper = MonotonicClock(),
                 priority: WriterPriority = .ordinary, link: LinkConductor? = nil, played: PlayedAudio? = nil,
                 position: AudiblePosition? = nil) {
        self.track = track
        self.sink = sink
        self.clock = clock
        self.priority = priority
        self.link = link
        self.played = played
        self.position = position ?? AudiblePosition(rate: sink.rate)
        fade = StopFade(rate: sink.rate, track: track)
        block = .allocate(capacity: sink.periodFrames)
    }

    deinit { block.deallocate() }

    /// Underruns so far.
    package var underruns: Int { underrunCount.load(ordering: .relaxed) }
    /// Whether the audio thread has finished (track over, stopped, or failed).
    package var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// The device error that ended playback, if one did.
    package var failure: SinkError? {
        let code = failureCode.load(ordering: .acquiring)
        if code == 0 { return nil }
        // Only the bounded wait fails with its code; everything else is the write's.
        return code == SinkError.stoppedTakingAudio.code ? .stoppedTakingAudio : SinkError(code: code, operation: "write")
    }

    /// What `start()` was granted; nil before, or when not asked.
    package private(set) var scheduling: RealTimeScheduling?

    package var rate: SampleRate { sink.rate }
    package var outputName: String { sink.name }
    /// The device's buffer; nil without a device.
    package var latencyTenths: Int64? { sink is SilentSink ? nil : Self.latencyTenths(sink) }

    /// A sink's buffer in tenths of a millisecond, rounded.
    package static func latencyTenths(_ sink: any AudioSink) -> Int64 {
        let rate = sink.rate.framesPerSecond
        return (Int64(sink.bufferFrames) * 10_000 + rate / 2) / rate
    }

    /// Starts the audio thread.
    package func start() {
        guard let handle = NamedThread.start(named: "metronome-audio", { self.run() }) else {
            finishedFlag.store(true, ordering: .releasing)
            return
        }
        thread = handle
        if case .realTime(let memoryLocked) = priority {
            scheduling = RealTimeScheduling.request(for: handle, memoryLocked: memoryLocked)
        }
    }

    /// Hands a practice command to the audio thread; it takes effect at the
    /// first frame not yet rendered. Returns at once, without locks.
    package func send(_ command: PracticeCommand) { commands.push(command) }

    /// Asks the audio thread to fade out and stop; returns at once.
    package func stop() { stopRequested.store(true, ordering: .releasing) }

    /// Waits for the audio thread to end.
    package func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// Whether the writer thread asks for real-time priority: the live command does
    /// for a card or PipeWire; a test need not.
    package enum WriterPriority: Sendable {
        case ordinary
        /// `memoryLocked`: whether the process's memory was locked before the device was opened (`RealTimeScheduling.lockMemory()`).
        case realTime(memoryLocked: Bool)
    }

    /// Reads of a stream whose delay report wanders over which its server's latency is averaged, then held (a second at 1024-frame periods).
    static let readsForServerLatency: Int64 = 48

    /// The audio thread's loop; also callable directly to play on the current thread.
    ///
    /// After an underrun the device restarts on a new line. Where the old one
    /// is known (`ConsumptionLine`), silence is written until the restarted
    /// stream has taken a few periods; the distance between the two lines is
    /// the time lost, and the track goes on where real time has reached, every
    /// later click on the grid. Without a line yet (an underrun at start-up)
    /// the gap runs from when the queue ran dry to the recovery.
    package func run() {
        defer { finishedFlag.store(true, ordering: .releasing) }
        let period = sink.periodFrames
        let rate = sink.rate.framesPerSecond
        var anchor: MonotonicInstant?
        var lastWrite = clock.now()
        var lastDelay: Int64 = 0
        // A write that takes a quarter of a period or more has blocked on the device.
        let periodNanoseconds = FrameTime.nanoseconds(inFrames: Int64(period), at: rate)
        // One that took longer than the buffer lasts: the process was stopped (or starved) and the device ran dry.
        let bufferNanoseconds = FrameTime.nanoseconds(inFrames: Int64(sink.bufferFrames), at: rate)
        var lastBlockedFrame = Int64.min / 2
        // A server behind which a write held longer than the buffer lasts leaves queued audio late.
        let restartsAfterALongWrite = !sink.takesBackQueuedFrames || sink.quantumFrames != nil
        var stallWatch = if let quantum = sink.quantumFrames {
            StallWatch(rate: sink.rate, quantum: quantum, bufferFrames: sink.bufferFrames)
        } else {
            StallWatch(rate: sink.rate, bufferFrames: sink.bufferFrames)
        }
        // Underruns in a row with no write taken between them: a device whose
        // server is gone (ALSA's pipewire plugin) recovers, then underruns again at once.
        var refusals = 0
        // The line the device takes the track's frames on.
        var consumption = ConsumptionLine(rate: sink.rate)
        // While resynchronising after an underrun: the line before it, the
        // frames written to the restarted stream, and that stream's line.
        var resynchronising = false
        var lineBefore: Int64 = 0
        var restartWritten: Int64 = 0
        var restarted = ConsumptionLine(rate: sink.rate)
        // Where the delay report wanders (the pulse plugin), the frame heard is the frames
        // taken less the server's latency beyond the buffer, held at its mean over the
        // first reads of each stream: the sound does not move, so neither does the picture.
        let wanders = sink.delayReportWanders
        var beyondSum: Int64 = 0, beyondReads: Int64 = 0

        while true {
            if stopRequested.load(ordering: .acquiring) {
                // Silence needs no fade.
                if resynchronising { break }
                // A stop fades out at once, also before the end of a `--duration` track.
                fade.stop(at: track.position)
            }
            while let command = commands.pop() {
                if let link, link.apply(command) { continue }
                track.apply(command)
            }
            let blockStart = track.position
            var frames = period
            if resynchronising {
                block.update(repeating: 0, count: period)
            } else {
                if let link {
                    frames = track.render(into: block, count: period, following: link)
                } else {
                    frames = track.render(into: block, count: period)
                }
                if frames == 0 { break }
                frames = fade.apply(to: block, from: blockStart, count: frames)
            }

            let before = clock.now()
            switch sink.write(block, frames: frames) {
            case .written:
                refusals = 0
                if !resynchronising { played?.record(block, count: frames, at: blockStart) }
            case .underrun(let error):
                refusals += 1
                if refusals > Self.refusalLimit {
                    failureCode.store(SinkError.stoppedTakingAudio.code, ordering: .releasing)
                    return
                }
                // The same silence, underrunning again before any write was taken, is counted once.
                if refusals == 1, !resynchronising { underrunCount.add(1, ordering: .relaxed) }
                // The device fell silent when the frames queued at the last write ran out.
                let dry = lastWrite.nanoseconds + FrameTime.nanoseconds(inFrames: lastDelay, at: rate)
                if let failure = sink.recover(from: error) {
                    failureCode.store(failure.code, ordering: .releasing)
                    return
                }
                let now = clock.now()
                if resynchronising || consumption.reads >= Self.readsForALine {
                    if !resynchronising { lineBefore = consumption.line }
                    resynchronising = true
                    restartWritten = 0
                    restarted.reset()
                } else {
                    let gap = max(0, FrameTime.frames(inNanoseconds: now.nanoseconds - dry, at: rate))
                    // This block was never played: resume where real time is now.
                    track.skip(to: blockStart + gap)
                    // The frames moved against time: Link's line is fitted again.
                    link?.restart()
                    stallWatch.restart(after: track.position)
                }
                anchor = nil
                lastWrite = now
                lastDelay = 0
                continue
            case .failed(let error):
                failureCode.store(error.code, ordering: .releasing)
                return
            }
            let after = clock.now()
            // A server that held a write longer than the buffer lasts may play what
            // was queued late: pulse's always does, PipeWire's graph when it skipped
            // a quantum of ours (which the stall watch would know only a buffer of
            // time later). Start the stream again and measure the new line, as after an underrun.
            if !resynchronising, restartsAfterALongWrite, after.nanoseconds - before.nanoseconds > bufferNanoseconds,
               consumption.reads >= Self.readsForALine {
                underrunCount.add(1, ordering: .relaxed)
                if let failure = sink.restart() {
                    failureCode.store(failure.code, ordering: .releasing)
                    return
                }
                lineBefore = consumption.line
                resynchronising = true
                restartWritten = 0
                restarted.reset()
                anchor = nil
                lastWrite = after
                lastDelay = 0
                continue
            }
            let status = sink.status()
            let stamp = status.at ?? after
            lastWrite = stamp
            lastDelay = status.delay
            if resynchronising {
                restartWritten += Int64(frames)
                restarted.observe(taken: restartWritten - status.queued, at: stamp)
                guard restarted.reads >= Self.readsForARestartedLine else { continue }
                // The restarted stream takes its frame D at (D − line)/rate, when
                // the track's frame D + lineBefore − line is due: the next one written.
                resynchronising = false
                beyondSum = 0
                beyondReads = 0
                track.skip(to: restartWritten + lineBefore - restarted.line)
                // The frames moved against time: Link's line is fitted again.
                link?.restart()
                stallWatch.restart(after: track.position)
                anchor = nil
                if track.position >= fade.end { break }
                continue
            }
            let written = track.position
            let taken = written - status.queued
            if wanders, beyondReads < Self.readsForServerLatency {
                beyondSum += status.delay - status.queued
                beyondReads += 1
            }
            let heard = wanders ? taken - beyondSum / beyondReads : written - status.delay
            position.publish(heard: heard, at: stamp, written: written)
            link?.observe(heard: heard, at: stamp)
            consumption.observe(taken: taken, at: stamp)
            if let lost = stallWatch.observe(taken: taken, at: stamp) {
                // The device stopped with us and lost time without an underrun
                // (ALSA's jack plugin): take back what is queued for the old
                // timeline and go on where real time is now.
                underrunCount.add(1, ordering: .relaxed)
                let takenBack = sink.rewind(upTo: lost)
                track.skip(to: written - takenBack + lost)
                // The frames moved against time: Link's line is fitted again.
                link?.restart()
                lastDelay -= takenBack
                anchor = nil
                if track.position >= fade.end { break }
                continue
            }

            // Pace a sink that takes frames faster than real time. A device
            // that blocked a write within the last second of audio keeps time
            // itself (ALSA's jack plugin takes several periods between blocks):
            // never sleep. One that never blocks is held to the monotonic clock.
            // A write blocked only if it was slow and left the device full (a
            // cold first write to ALSA null is slow into room).
            if (after.nanoseconds - before.nanoseconds) * 4 >= periodNanoseconds, status.delay >= Int64(sink.bufferFrames - period) {
                lastBlockedFrame = written
            }
            if anchor == nil || written - lastBlockedFrame < rate {
                anchor = MonotonicInstant(nanoseconds: stamp.nanoseconds - FrameTime.nanoseconds(inFrames: heard, at: rate))
            } else if let anchor {
                let due = anchor.nanoseconds + FrameTime.nanoseconds(inFrames: heard, at: rate)
                if due > after.nanoseconds { clock.sleep(until: MonotonicInstant(nanoseconds: due)) }
            }
            if blockStart + Int64(frames) >= fade.end { break }
        }
        // A period of silence after the end: once drained, ALSA's jack plugin leaves its port's
        // buffer as it is, and JACK plays that last period again every cycle until the stream closes.
        block.update(repeating: 0, count: period)
        _ = sink.write(block, frames: period)
        sink.drain()
    }

    /// Reads of the device's line before an underrun that make it worth keeping.
    static let readsForALine = 8
    /// Reads of a restarted stream, each after it has taken frames, whose best gives its line.
    static let readsForARestartedLine = 4

    /// Underruns in a row, each right after a recovery, that mean the device is gone rather than late.
    static let refusalLimit = 3
}
