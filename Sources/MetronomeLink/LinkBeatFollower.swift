/// Places Link's clicks period after period, none doubled or skipped as the
/// line and the timeline move under them.
///
/// The refitted line can move a beat at a period's edge across it between two
/// periods. So the last beat played is remembered: no later period plays it or
/// an earlier one again, and the next one, found up to `lateFrames` before the
/// period, plays at its first frame rather than never.
///
/// The line also wanders by a few frames as reports come and go. Its move of
/// the last click's Link time is taken up half a frame a beat, so intervals
/// keep the tempo within a frame; a move over a millisecond (a new line), and
/// any move of the timeline itself (a peer's tempo or phase), at once. A jump
/// of the timeline (the beat at the period's start over half a beat before the
/// last played, or one and a half after) drops the memory.
package struct LinkBeatFollower: Sendable {
    /// The last click played, if the timeline has not jumped since.
    package private(set) var last: LinkClick?
    /// Where the last click was placed, in billionths of a frame, and the Link time it stood for.
    private var placed: Int128 = 0
    private var placedTime = LinkTime(micros: 0)
    /// How late, in frames, the next beat may still play at the start of a period.
    package let lateFrames: Int64

    /// How far a click moves towards the line each beat, in billionths of a frame.
    static let stepNanoframes: Int128 = 500_000_000

    package init(lateFrames: Int64) {
        precondition(lateFrames >= 0, "lateness cannot be negative")
        self.lateFrames = lateFrames
    }

    /// Forgets the last click, as after a pause.
    package mutating func reset() {
        last = nil
    }

    /// The clicks of the period, to `body` in order (see `LinkClickPlacement`).
    package mutating func clicks<Timeline: LinkTimeline>(
        inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping,
        timeline: Timeline, quantum: Int, _ body: (LinkClick) -> Void
    ) {
        let bar = Double(quantum)
        if let previous = last {
            let now = timeline.beat(at: mapping.time(ofFrame: start), quantum: bar)
            let from = Double(previous.beat)
            if !(now >= from - 0.5 && now <= from + 1.5) { last = nil }
        }
        if let previous = last {
            // Beat after beat from the last one played, each where the line puts the
            // session's beat less what is still held of the line's move, until one
            // falls after the period.
            let jump = Int128(mapping.nanoframesPerSecond / 1_000)
            var beat = previous.beat + 1
            var passed = false
            while count > 0 {
                let time = timeline.time(atBeat: Double(beat), quantum: bar)
                let due = mapping.nanoframe(at: time)
                // How far the line has moved the last click's time from where it was placed:
                // of that, half a frame is taken each beat; the timeline's own moves at once.
                let moved = mapping.nanoframe(at: placedTime) - placed
                let held = abs(moved) > jump ? 0 : moved - min(max(moved, -Self.stepNanoframes), Self.stepNanoframes)
                let place = due - held
                var frame = FrameTimeMapping.firstFrame(atOrAfterNanoframe: place)
                if frame >= start + count { break }
                if frame < start {
                    // Too late even for the period's first frame: passed, as a beat that
                    // has been; the period's own beats play from where they fall.
                    if start - frame > lateFrames { passed = true; break }
                    frame = start
                    placed = Int128(start) * FrameTimeMapping.nanosPerSecond
                } else {
                    placed = place
                }
                let click = LinkClick(frame: frame, beat: beat, isDownbeat: LinkClickPlacement.isDownbeat(beat, quantum: quantum))
                body(click)
                last = click
                placedTime = time
                beat += 1
            }
            if !passed { return }
        }
        // Beat by beat, not through a closure: a debug build would box state on the heap.
        if let (first, end) = LinkClickPlacement.candidates(inPeriodFrom: start, frames: count, mapping: mapping,
                                                           timeline: timeline, quantum: quantum) {
            var beat = first
            while beat <= end {
                defer { beat += 1 }
                guard let click = LinkClickPlacement.click(beat, inPeriodFrom: start, frames: count, mapping: mapping,
                                                           timeline: timeline, quantum: quantum) else { continue }
                if let previous = last, click.beat <= previous.beat { continue }
                body(click)
                last = click
                placedTime = timeline.time(atBeat: Double(beat), quantum: bar)
                placed = mapping.nanoframe(at: placedTime)
            }
        }
    }
}
