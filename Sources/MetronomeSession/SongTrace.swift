/// When the trace records a setlist's song: once it plays, not when the
/// track starts it. The track starts a song at a frame; a click at or after
/// that frame plays it, and so does the end of the run. A song started
/// later at the same frame (`n` pressed again while paused) replaces it
/// unrecorded, as it never played.
struct SongTrace {
    /// A song the track started that the trace has not had yet.
    private var waiting: (song: Int, frame: Int64)?

    /// The track started `song` at `frame`: the song it replaces, if that one played and is to be traced now.
    mutating func started(_ song: Int, at frame: Int64) -> (song: Int, frame: Int64)? {
        let played = waiting.flatMap { $0.frame < frame ? $0 : nil }
        waiting = (song, frame)
        return played
    }

    /// The track started clicks up to `frame`: the song they play, if it is to be traced now (before them).
    mutating func clicks(through frame: Int64) -> (song: Int, frame: Int64)? {
        guard let song = waiting, frame >= song.frame else { return nil }
        waiting = nil
        return song
    }

    /// The run ended: the song it ended with, if it is still to be traced.
    mutating func finish() -> (song: Int, frame: Int64)? {
        defer { waiting = nil }
        return waiting
    }
}
