/// Which beats of a Link timeline start inside a period of frames, and on
/// which frame: where `phaseAtTime` wraps, as in Link's examples, but found
/// beat by beat rather than frame by frame.
///
/// For a period of `count` frames from `start`, the beats near the period
/// (from the beat at its start to the beat at its end, one more each side) are
/// each taken to their Link time (`timeAtBeat`) and on to the first frame heard
/// at or after it (`FrameTimeMapping.firstFrame(atOrAfter:)`, exact integers);
/// those whose frame lies in the period are the clicks. The frame decides
/// alone, so consecutive periods on one line and one timeline give every beat
/// exactly once. Nothing is allocated: the clicks go to `body` in order.
public enum LinkClickPlacement {
    public static func clicks<Timeline: LinkTimeline>(
        inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping,
        timeline: Timeline, quantum: Int, _ body: (LinkClick) -> Void
    ) {
        precondition(quantum > 0 && count >= 0, "a period needs a length and a bar a beat")
        let bar = Double(quantum)
        let first = timeline.beat(at: mapping.time(ofFrame: start), quantum: bar)
        let last = timeline.beat(at: mapping.time(ofFrame: start + count), quantum: bar)
        // Beats are whole numbers below 2⁵³ as doubles; anything else is no timeline.
        let limit = 0x1p52
        guard first.isFinite, last.isFinite, abs(first) < limit, abs(last) < limit else { return }
        var beat = Int64(first.rounded(.down)) - 1
        let end = Int64(last.rounded(.up)) + 1
        while beat <= end {
            let frame = mapping.firstFrame(atOrAfter: timeline.time(atBeat: Double(beat), quantum: bar))
            if frame >= start, frame - start < count {
                body(LinkClick(frame: frame, beat: beat, isDownbeat: isDownbeat(beat, quantum: quantum)))
            }
            beat += 1
        }
    }

    /// Whether `beat` starts a bar: a multiple of the quantum, negative beats included.
    public static func isDownbeat(_ beat: Int64, quantum: Int) -> Bool {
        let remainder = beat % Int64(quantum)
        return remainder == 0
    }
}
