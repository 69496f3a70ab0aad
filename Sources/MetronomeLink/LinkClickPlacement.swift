/// Which beats of a Link timeline start inside a period of frames, and on
/// which frame: where `phaseAtTime` wraps, as in Link's examples, but found
/// beat by beat rather than frame by frame.
///
/// Each beat near the period goes to its Link time (`timeAtBeat`) and on to
/// the first frame heard at or after it (`FrameTimeMapping.firstFrame(atOrAfter:)`,
/// exact integers). The frame alone decides, so consecutive periods on one
/// line and one timeline give every beat exactly once. Allocates nothing; a
/// caller that keeps state goes beat by beat through `candidates` and `click`,
/// for a debug build puts a variable a closure captures and changes on the heap.
package enum LinkClickPlacement {
    package static func clicks<Timeline: LinkTimeline>(
        inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping,
        timeline: Timeline, quantum: Int, _ body: (LinkClick) -> Void
    ) {
        guard let (first, end) = candidates(inPeriodFrom: start, frames: count, mapping: mapping, timeline: timeline, quantum: quantum) else { return }
        var beat = first
        while beat <= end {
            if let click = click(beat, inPeriodFrom: start, frames: count, mapping: mapping, timeline: timeline, quantum: quantum) { body(click) }
            beat += 1
        }
    }

    /// The beats that may start in the period: from one before the beat at its
    /// start to one after the beat at its end; nil when the timeline gives no beats there.
    @inline(__always)
    package static func candidates<Timeline: LinkTimeline>(
        inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping, timeline: Timeline, quantum: Int
    ) -> (first: Int64, last: Int64)? {
        precondition(quantum > 0 && count >= 0, "a period needs a length and a bar a beat")
        let bar = Double(quantum)
        let first = timeline.beat(at: mapping.time(ofFrame: start), quantum: bar)
        let last = timeline.beat(at: mapping.time(ofFrame: start + count), quantum: bar)
        // Beats are whole numbers below 2⁵³ as doubles; anything else is no timeline.
        let limit = 0x1p52
        guard first.isFinite, last.isFinite, abs(first) < limit, abs(last) < limit else { return nil }
        return (Int64(first.rounded(.down)) - 1, Int64(last.rounded(.up)) + 1)
    }

    /// Beat `beat` as a click of the period, if its first frame lies in it.
    @inline(__always)
    package static func click<Timeline: LinkTimeline>(
        _ beat: Int64, inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping, timeline: Timeline, quantum: Int
    ) -> LinkClick? {
        let frame = mapping.firstFrame(atOrAfter: timeline.time(atBeat: Double(beat), quantum: Double(quantum)))
        guard frame >= start, frame - start < count else { return nil }
        return LinkClick(frame: frame, beat: beat, isDownbeat: isDownbeat(beat, quantum: quantum))
    }

    /// Whether `beat` starts a bar: a multiple of the quantum, negative beats included.
    package static func isDownbeat(_ beat: Int64, quantum: Int) -> Bool {
        let remainder = beat % Int64(quantum)
        return remainder == 0
    }
}
