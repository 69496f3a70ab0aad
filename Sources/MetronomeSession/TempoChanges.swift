import MetronomeTiming

/// Which new passages change the tempo, as the trace reports it: a passage
/// at the same tempo whose clicks fall where the previous grid put them is no change.
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
        if last.tempo == passage.tempo, last.frame(ofClick: passage.firstClick) == first { return nil }
        return first
    }
}
