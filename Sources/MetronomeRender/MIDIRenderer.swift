import Glibc
import MetronomeSupport
import MetronomeTiming
import MetronomeAudio

/// Renders a finite click track into a Standard MIDI File (`--output x.mid`).
///
/// The track runs its very `render` call, as for a sound file; the clicks it
/// starts and the passages that time them become notes on the drum channel
/// and the file's tempo map (`MIDIExport`). Written under a temporary name
/// and renamed into place once whole.
package struct MIDIRenderer {
    package let path: String
    package let force: Bool

    /// The most clicks an export takes: the file is built in memory (about
    /// 430 bytes a click at its peak, 215 MB here), so a longer one is refused
    /// as soon as its clicks pass this, not by running out of memory.
    package static let mostClicks = 500_000

    package init(path: String, force: Bool = false) {
        self.path = path
        self.force = force
    }

    /// Renders `track` to its end. `volume` is the level the track's clicks are
    /// scaled by (velocities follow it); `markers` names bars (from 0) of the
    /// run; `drained` sees the clicks and passages of each block (for a trace);
    /// `interrupted` and `created` as for `FileRenderer.render`.
    package func render(_ track: ClickTrack, volume: Float, markers: TempoMapMarkers,
                       drained: ([StartedClick], [Passage]) throws -> Void = { _, _ in },
                       interrupted: () throws -> Int32? = { nil }, created: () throws -> Void = {}) throws -> Int64 {
        try OutputTarget(path: path).checkReplaceable(force: force)
        let temporary = try TemporaryFile(beside: path)
        var keep = false
        defer { if !keep { temporary.remove() } }
        try created()

        let clickLog = ClickLog(capacity: 1 << 16)
        let passageLog = LockFreeQueue<Passage>(capacity: 1024)
        track.clickLog = clickLog
        track.passageLog = passageLog
        var clicks: [StartedClick] = []
        var passages: [Passage] = [track.passage]
        let blockFrames = FileRenderer.blockFrames
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames)
        defer { scratch.deallocate() }
        var progress = ProgressBar(total: track.endFrame ?? 1)
        defer { progress.finish() }
        while true {
            if let signal = try interrupted() { throw FileRenderer.Interruption.signal(signal) }
            let newClicks = clickLog.drain(), newPassages = passageLog.drain()
            try drained(newClicks, newPassages)
            clicks += newClicks
            passages += newPassages
            // Tempo changes count too: a muted beat is no note, but a map's ramp or per-beat list gives each beat a passage.
            guard clicks.count + passages.count <= Self.mostClicks else {
                throw RenderError.badRequest("'\(path)' would hold more than \(Self.mostClicks) clicks and tempo changes, the most a MIDI export holds: render fewer bars, or to a sound file")
            }
            if track.isFinished { break }
            track.render(into: scratch, count: blockFrames)
            progress.update(done: track.position)
        }
        let file = try Self.file(clicks: clicks, passages: passages, beatsPlayed: track.nextClick, volume: volume,
                                 markers: markers, count: track.count, rate: track.schedule.rate)
        try temporary.write(file.bytes(), naming: path)
        try temporary.commit(as: path)
        keep = true
        return track.position
    }

    /// The file of a run: a beat for every click up to the end of the bar of
    /// the last one played (`beatsPlayed` beats were), each timed by the last
    /// passage that starts at or before it, a note for every click that sounded,
    /// and with a spoken `count` a lyric for every word, on its click.
    static func file(clicks: [StartedClick], passages: [Passage], beatsPlayed: Int64, volume: Float,
                     markers: TempoMapMarkers, count: CountVoice? = nil, rate: SampleRate) throws(RenderError) -> MIDIFile {
        // One passage a first click: the latest that took over there.
        var timing: [Passage] = []
        for passage in passages {
            while let last = timing.last, last.firstClick >= passage.firstClick { timing.removeLast() }
            timing.append(passage)
        }
        var current = 0
        func passage(ofClick click: Int64) -> Passage {
            while current + 1 < timing.count, timing[current + 1].firstClick <= click { current += 1 }
            while current > 0, timing[current].firstClick > click { current -= 1 }
            return timing[current]
        }
        var beats: [MIDIExport.Beat] = []
        var markerBeats: [(beat: Int, text: String)] = []
        var click: Int64 = 0
        while true {
            let passage = passage(ofClick: click)
            let (bar, beatInBar) = passage.bar(ofClick: click)
            let startsBar = beatInBar == 0
            let (numerator, denominator) = passage.grid.framesPerClick
            // Click k at `originFrame + (phase + 2(k - originClick)P) / 2Q`: where the grid puts it before rounding.
            let exact = (Int128(passage.originFrame) * 2 * Int128(denominator) + Int128(passage.phase.beat)
                            + 2 * Int128(click - passage.originClick) * Int128(numerator), 2 * Int128(denominator))
            if click >= beatsPlayed, startsBar || click == 0 {
                beats.append(MIDIExport.Beat(frame: passage.frame(ofClick: click), exactFrame: exact, microsecondsPerQuarter: (1, 1),
                                             meter: passage.meter, startsBar: true))
                break
            }
            // Frames a beat P/Q, at R frames a second, of 4/d quarters: P * 10^6 * d / (4 * Q * R) µs a quarter.
            let micro = (Int128(numerator) * 1_000_000 * Int128(passage.meter.noteValue),
                         4 * Int128(denominator) * Int128(rate.framesPerSecond))
            if startsBar, let text = markers.label(atBar: bar) { markerBeats.append((beats.count, text)) }
            beats.append(MIDIExport.Beat(frame: passage.frame(ofClick: click), exactFrame: exact, microsecondsPerQuarter: micro,
                                         meter: passage.meter, startsBar: startsBar))
            click += 1
        }
        current = 0
        var notes: [MIDIExport.Note] = []
        var lyrics: [MIDIExport.Lyric] = []
        for started in clicks.sorted(by: { $0.frame < $1.frame }) {
            if let count, let word = CountVoice.Word.spoken(for: started, clicksPerBeat: passage(ofClick: started.click).rhythm.subdivision.clicksPerBeat,
                                                            subdivided: count.subdivided) {
                lyrics.append(MIDIExport.Lyric(frame: started.frame, text: word.text))
            }
            guard let note = ClickNote(started, volume: volume) else { continue }
            notes.append(MIDIExport.Note(frame: started.frame, key: note.key, velocity: note.velocity))
        }
        return try MIDIExport.file(beats: beats, notes: notes, markers: markerBeats, lyrics: lyrics, rate: rate)
    }
}
