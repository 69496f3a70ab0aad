import MetronomeTiming
import MetronomeAudio

/// A render's trace (`--trace` with `--output`): opened once the output exists, so a
/// render that cannot create its file leaves an existing trace alone; then, between
/// blocks and before the file is kept, the tempo changes and clicks of the blocks
/// rendered so far. A trace that cannot be written ends the render.
final class RenderTrace {
    private let settings: Settings
    private let track: ClickTrack
    private var trace: Trace?
    private var tempoChanges: TempoChanges

    init(_ settings: Settings, track: ClickTrack) {
        self.settings = settings
        self.track = track
        tempoChanges = TempoChanges(after: track.passage)
    }

    /// Creates the trace, if one was asked for, with the first tempo and the song a setlist plays.
    func open() throws(SessionError) {
        trace = try settings.trace.map { path throws(SessionError) in try Trace(path: path, force: settings.force) }
        trace?.begin(tempo: track.schedule.tempo, songs: settings.songs)
    }

    /// The passages and clicks rendered since the last call.
    func record(clicks: [StartedClick], passages: [Passage]) throws(SessionError) {
        guard let trace else { return }
        for passage in passages {
            if let frame = tempoChanges.firstFrame(ofChangeTo: passage) { trace.tempo(passage.tempo, frame: frame) }
        }
        for click in clicks { trace.click(click) }
        trace.flush()
        if let error = trace.error { throw error }
    }
}
