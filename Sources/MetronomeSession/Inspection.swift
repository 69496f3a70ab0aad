import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeAudio
import MetronomeListening

/// One run's `--inspect` or `--calibrate`: the capture thread, the listening
/// `Inspector`, the trace's hits and the lines printed. The UI loop calls it
/// from one place a wake (`listen`) and once at the end (`finish`).
public final class Inspection {
    public let settings: InspectorSettings
    public let capture: LiveCapture
    public let inspector: Inspector
    let trace: Trace?
    /// Where the audio thread records what it plays, for the bleed to be taken out (nil when calibrating).
    let played: PlayedAudio?
    /// A line per note (`--verbose` without a picture).
    let printsNotes: Bool

    init(settings: InspectorSettings, capture: LiveCapture, inspector: Inspector, trace: Trace?, printsNotes: Bool, played: PlayedAudio? = nil) {
        self.played = played
        self.settings = settings
        self.capture = capture
        self.inspector = inspector
        self.trace = trace
        self.printsNotes = printsNotes
    }

    /// Starts the capture thread and waits for its first period (2 s at most) before playback
    /// starts: the first click then comes back after frames that say how loud the input's floor is.
    func start() {
        capture.start()
        _ = capture.waitUntilReading(milliseconds: 2_000)
    }

    func receive(clicks: [StartedClick]) { inspector.receive(clicks: clicks) }

    /// What was heard since the last wake: the trace's hits, the lines to print, and the matched notes' offsets (ms).
    func listen(sample: (heard: Int64, at: MonotonicInstant, written: Int64), now: MonotonicInstant) -> (lines: String, offsets: [Double]) {
        report(inspector.listen(sample: sample, now: now))
    }

    /// The trace's hits, the lines to print and the matched offsets for `notes`.
    private func report(_ notes: [Inspector.Note]) -> (lines: String, offsets: [Double]) {
        var lines = ""
        var offsets: [Double] = []
        for note in notes {
            guard let match = note.match else {
                if printsNotes { lines += "extra note at frame \(note.frame)\n" }
                continue
            }
            let beat = inspector.beat(of: match)
            offsets.append(match.offsetMilliseconds)
            trace?.hit(frame: note.frame, beat: beat, offsetMilliseconds: match.offsetMilliseconds)
            if printsNotes { lines += "note on beat \(beat): \(InspectorSummary.milliseconds(match.offsetMilliseconds))\n" }
        }
        return (lines, offsets)
    }

    /// After playback ended: listens on until the last click's note has had time
    /// to come back (the round trip, aubio's delay and a half interval's grace),
    /// then stops the capture thread.
    func finish(sample: @escaping () -> (heard: Int64, at: MonotonicInstant, written: Int64)) -> String {
        let clock = MonotonicClock()
        let grace = FrameTime.nanoseconds(inFrames: max(0, inspector.roundTripFrames), at: inspector.rate.framesPerSecond) + 300_000_000
        let deadline = clock.now().nanoseconds + grace
        var lines = ""
        while clock.now().nanoseconds < deadline, !capture.isFinished {
            lines += listen(sample: sample(), now: clock.now()).lines
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)  // waiting out a bounded tail, not synchronising
        }
        capture.stop()
        capture.join()
        // The capture thread is done: take what it left, however much (one listen takes a bounded share).
        repeat { lines += listen(sample: sample(), now: clock.now()).lines } while capture.log.peek() != nil
        lines += report(inspector.finish()).lines
        trace?.flush()
        return lines
    }

    /// The take's figures: every click up to the last is a note or a miss.
    public var statistics: TakeStatistics { inspector.statistics(through: inspector.lastClickFrame ?? 0) }
}
