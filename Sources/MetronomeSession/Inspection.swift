import MetronomeSupport
import MetronomeTiming
import MetronomeAudio
import MetronomeListening

/// One run's `--inspect` or `--calibrate`: the capture thread, the listening
/// thread (`LiveListener`), the trace's hits and the lines printed. The UI
/// loop hands it the clicks and takes what was heard, once a wake (`listen`),
/// and waits for the last notes once at the end (`finish`).
package final class Inspection {
    package let settings: InspectorSettings
    package let capture: LiveCapture
    package let listener: LiveListener
    let trace: Trace?
    /// Where the audio thread records what it plays, for the bleed to be taken out (nil when calibrating).
    let played: PlayedAudio?
    /// A line per note (`--verbose` without a picture).
    let printsNotes: Bool

    init(settings: InspectorSettings, capture: LiveCapture, listener: LiveListener, trace: Trace?, printsNotes: Bool, played: PlayedAudio? = nil) {
        self.played = played
        self.settings = settings
        self.capture = capture
        self.listener = listener
        self.trace = trace
        self.printsNotes = printsNotes
    }

    /// The listening side; the listening thread's while it runs.
    package var inspector: Inspector { listener.inspector }

    /// Starts the capture thread and waits for its first period (2 s at most) before playback
    /// starts: the first click then comes back after frames that say how loud the input's floor is.
    func start() {
        capture.start()
        _ = capture.waitUntilReading(milliseconds: 2_000)
        listener.start()
    }

    /// The frames captured so far: read before the clicks are collected, every click whose sound
    /// they may hold is among those handed over next.
    var captured: Int64 { capture.framesRead }

    func receive(clicks: [StartedClick]) { listener.receive(clicks: clicks) }

    /// What the listening thread heard since the last `listen`.
    struct Heard {
        /// Lines to print (`--verbose` without a picture).
        var lines = ""
        /// The matched notes' offsets (ms), for the status line.
        var offsets: [Double] = []
        /// The matched notes: their clicks' frames and how far off they were, for the adaptive trainer.
        var matches: [NoteMatch] = []
        /// The output frame up to which every note played is among those heard so far; nil before it is known.
        var through: Int64?
    }

    /// Lets the listening thread go on up to capture frame `captured`; what it heard since the
    /// last call: the trace's hits, the lines to print, and the matched notes.
    func listen(through captured: Int64) -> Heard {
        listener.listen(through: captured)
        // Read before the notes are taken: every note up to it is among them.
        var heard = Heard(through: listener.heardThrough)
        while let note = listener.next() {
            if let match = note.note.match { heard.matches.append(match) }
            report(note, lines: &heard.lines, offsets: &heard.offsets)
        }
        return heard
    }

    /// The trace's hit, the line to print and the matched offset for one note heard.
    private func report(_ heard: LiveListener.Heard, lines: inout String, offsets: inout [Double]) {
        guard let match = heard.note.match, let beat = heard.beat else {
            if printsNotes { lines += "extra note at frame \(heard.note.frame)\n" }
            return
        }
        offsets.append(match.offsetMilliseconds)
        trace?.hit(frame: heard.note.frame, beat: beat, offsetMilliseconds: match.offsetMilliseconds)
        if printsNotes { lines += "note on beat \(beat): \(InspectorSummary.milliseconds(match.offsetMilliseconds))\n" }
    }

    /// After playback ended (every click handed over): listens on until the last click's note
    /// has had time to come back (the round trip and 300 ms more, for aubio's delay and grace),
    /// then stops the capture and the listening threads and takes what they left.
    func finish(clock: any Timekeeper) -> String {
        let grace = FrameTime.nanoseconds(inFrames: max(0, inspector.roundTripFrames), at: inspector.rate.framesPerSecond) + 300_000_000
        let deadline = clock.now().nanoseconds + grace
        var lines = ""
        while clock.now().nanoseconds < deadline, !capture.isFinished {
            lines += listen(through: .max).lines
            // Waiting out a bounded tail, not synchronising.
            clock.sleep(until: MonotonicInstant(nanoseconds: clock.now().nanoseconds + 5_000_000))
        }
        capture.stop()
        capture.join()
        listener.stop()
        listener.join()
        var offsets: [Double] = []
        for heard in listener.finish() { report(heard, lines: &lines, offsets: &offsets) }
        trace?.flush()
        return lines
    }

    /// The take's figures: every click up to the last is a note or a miss.
    package var statistics: TakeStatistics { inspector.statistics(through: inspector.lastClickFrame ?? 0) }
}
