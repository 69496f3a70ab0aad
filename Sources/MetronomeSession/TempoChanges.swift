import MetronomeTiming

/// Which new passages change the tempo, as the trace reports it: a passage
/// at the same tempo whose clicks fall where the previous grid put them
/// (within a millisecond) is no change.
struct TempoChanges {
    /// The passage playing before: the track's first, whose tempo the trace reports at frame 0.
    private var last: Passage

    init(after first: Passage) {
        last = first
    }

    /// The frame of the first click at the new tempo, or nil when `passage` changes nothing (or pauses).
    mutating func firstFrame(ofChangeTo passage: Passage) -> Int64? {
        guard !passage.paused else { return nil }
        defer { last = passage }
        let first = passage.frame(ofClick: passage.firstClick)
        // Within a millisecond of the old grid: the track following placed beats anew (a MIDI clock's
        // first tick kept on each of Link's clicks), as the track itself lets them lie that far off.
        let tolerance = max(1, passage.grid.rate.framesPerSecond / 1_000)
        if last.tempo == passage.tempo, abs(last.frame(ofClick: passage.firstClick) - first) <= tolerance { return nil }
        return first
    }
}
