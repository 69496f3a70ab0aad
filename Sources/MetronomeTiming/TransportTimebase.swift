/// The BBT a JACK timebase master fills for any frame, from the run's exact
/// grid: a constant tempo and meter, or a plan (a tempo map with its ramps and
/// meter changes, the speed trainer).
///
/// A beat is a click of the grid, on the very frame the click track plays it,
/// counted as `Meter` counts beats (six in 6/8). Ticks are that grid
/// `ticksPerBeat` times finer, placed as `ClickSchedule.frame(ofTick:)` places
/// them, so the frame of a click is tick 0 of its beat and the frame before it
/// is in the previous beat, never past its last tick. 1920 ticks a beat, as
/// Ardour publishes: 2^7·3·5, so halves, triplets and quintuplets are whole.
///
/// The passages are worked out when it is made, and it allocates then: every
/// passage of a plan that ends (its last plays on for ever), of a looping map
/// those starting by `horizon`, the last going on past it (the loop is not
/// repeated there). One entry a passage: a constant stretch or a trainer step
/// is one, a ramp or a per-beat list one a beat. An answer allocates nothing:
/// the passage is the one of the last answer or the next while the transport
/// rolls, else found by binary search (a relocation). Its products are 128-bit:
/// ten years at 192 kHz (2^46 frames) times a grid's denominator (below 2^41)
/// times 1920 stays below 2^98.
package struct TransportTimebase: Sendable {
    package static let ticksPerBeat = 1920

    /// The passages in the order they play, the first from frame 0.
    private let passages: [Passage]
    /// The frame each passage takes over, for the search.
    private let startFrames: [Int64]
    /// The passage of the last answer.
    private var hint = 0

    /// A constant tempo and meter: click 0, bar 1, at frame 0.
    package init(schedule: ClickSchedule) {
        passages = [Passage(schedule: schedule)]
        startFrames = [0]
    }

    /// The grid `plan` plays (with its count-in, if any, as the click track
    /// plays it: bars 0, -1, … before bar 1); `horizon` bounds an endless plan.
    package init(plan: TempoPlan, horizon: Int64) {
        var plan = plan
        var passages = [Passage(schedule: plan.firstSchedule, rhythm: plan.firstRhythm)]
        while let passage = plan.next() {
            // A passage that starts on the same click replaces the one before, as in the track.
            while let last = passages.last, passage.firstClick <= last.firstClick { passages.removeLast() }
            passages.append(passage)
            guard passage.plannedMore else { break }
            if case .map(_, _, loops: true) = plan.source, passage.startFrame > horizon { break }
        }
        self.passages = passages
        startFrames = passages.map(\.startFrame)
    }

    /// The position at `frame` (frames since the grid's frame 0; a negative frame is frame 0).
    package mutating func position(atFrame frame: Int64) -> TransportPosition {
        let frame = max(frame, 0)
        let index = passageIndex(containing: frame)
        let passage = passages[index]
        let ticks = Int64(Self.ticksPerBeat)
        // The last click at or before the frame, never one the next passage plays.
        let nextFirst = index + 1 < passages.count ? passages[index + 1].firstClick : .max
        let click = max(passage.firstClick, min(passage.firstClick(atOrAfter: frame + 1) - 1, nextFirst - 1))
        // Tick t from the origin starts at floor((2Pt + QT + phase·T) / 2QT): the last at or before the
        // frame is floor((QT(2x + 1) - phase·T - 1) / 2P), x frames past the origin.
        let (p, q) = passage.grid.framesPerClick
        let x = Int128(frame - passage.originFrame)
        let numerator = Int128(q) * Int128(ticks) * (2 * x + 1) - Int128(passage.phase.beat) * Int128(ticks) - 1
        let lastTick = Self.floorDivide(numerator, 2 * Int128(p))
        let tick = min(max(lastTick - Int128(click - passage.originClick) * Int128(ticks), 0), Int128(ticks - 1))
        let (bar, beatInBar) = passage.bar(ofClick: click)
        let rate = Double(passage.grid.rate.framesPerSecond)
        return TransportPosition(bar: bar + 1, beat: Int(beatInBar) + 1, tick: Int(tick),
                                 barStartTick: (click - beatInBar) * ticks,
                                 beatsPerBar: passage.meter.beatsPerBar, beatType: passage.meter.noteValue,
                                 ticksPerBeat: Self.ticksPerBeat,
                                 beatsPerMinute: 60 * rate * Double(q) / Double(p))
    }

    /// How many passages it holds (for sizing, and the tests).
    package var passageCount: Int { passages.count }

    /// The last passage starting at or before `frame`: the hint or the next
    /// while rolling, else a binary search.
    private mutating func passageIndex(containing frame: Int64) -> Int {
        let count = startFrames.count
        if startFrames[hint] <= frame {
            if hint + 1 == count || frame < startFrames[hint + 1] { return hint }
            if hint + 2 == count || frame < startFrames[hint + 2] {
                hint += 1
                return hint
            }
        }
        // startFrames[0] is 0, at or before every frame asked.
        var low = 0, high = count
        while high - low > 1 {
            let middle = (low + high) / 2
            if startFrames[middle] <= frame { low = middle } else { high = middle }
        }
        hint = low
        return low
    }

    /// `floor(a / b)` for `b > 0`.
    @inline(__always)
    static func floorDivide(_ a: Int128, _ b: Int128) -> Int128 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }
}
