/// Places Link's clicks period after period with none doubled or skipped
/// while the line and the timeline move under them.
///
/// The line is refitted every period and moves by fractions of a frame, so a
/// beat at a period's edge can move from one side of the edge to the other
/// between two periods: played twice, or never. The follower remembers the
/// last beat it played: a later period never plays that beat or an earlier one
/// again, and the next beat, found up to `lateFrames` before the period,
/// plays at the period's first frame instead of not at all.
///
/// When the timeline jumps (a session joined, a peer's phase adopted: the beat
/// at the period's start is more than half a beat before the last one played,
/// or more than one and a half after), the memory is dropped and the new
/// timeline's beats play from where they fall.
public struct LinkBeatFollower: Sendable {
    /// The last click played, if the timeline has not jumped since.
    public private(set) var last: LinkClick?
    /// How late, in frames, the next beat may still play at the start of a period.
    public let lateFrames: Int64

    public init(lateFrames: Int64) {
        precondition(lateFrames >= 0, "lateness cannot be negative")
        self.lateFrames = lateFrames
    }

    /// Forgets the last click, as after a pause.
    public mutating func reset() {
        last = nil
    }

    /// The clicks of the period, to `body` in order (see `LinkClickPlacement`).
    public mutating func clicks<Timeline: LinkTimeline>(
        inPeriodFrom start: Int64, frames count: Int64, mapping: FrameTimeMapping,
        timeline: Timeline, quantum: Int, _ body: (LinkClick) -> Void
    ) {
        let bar = Double(quantum)
        var played = last
        if let previous = played {
            let now = timeline.beat(at: mapping.time(ofFrame: start), quantum: bar)
            let from = Double(previous.beat)
            if !(now >= from - 0.5 && now <= from + 1.5) { played = nil }
        }
        if let previous = played, count > 0 {
            let next = previous.beat + 1
            let frame = mapping.firstFrame(atOrAfter: timeline.time(atBeat: Double(next), quantum: bar))
            if frame < start, start - frame <= lateFrames {
                let click = LinkClick(frame: start, beat: next, isDownbeat: LinkClickPlacement.isDownbeat(next, quantum: quantum))
                body(click)
                played = click
            }
        }
        // Beat by beat, not through a closure: a debug build would box `played` on the heap.
        if let (first, end) = LinkClickPlacement.candidates(inPeriodFrom: start, frames: count, mapping: mapping,
                                                           timeline: timeline, quantum: quantum) {
            var beat = first
            while beat <= end {
                defer { beat += 1 }
                guard let click = LinkClickPlacement.click(beat, inPeriodFrom: start, frames: count, mapping: mapping,
                                                           timeline: timeline, quantum: quantum) else { continue }
                if let previous = played, click.beat <= previous.beat { continue }
                body(click)
                played = click
            }
        }
        last = played
    }
}
