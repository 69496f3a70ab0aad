/// The adaptive speed trainer (`--step S/M --until T --when-tight MS`, with
/// `--inspect`), as a pure rule: bars judged in order go in, the tempo to ask
/// for comes out. Knows no clock, no device and no listener.
///
/// The tempo moves by S after M bars in a row played at the trainer's tempo
/// in which every click had a note within MS of it and none was missed; a
/// bar that is not tight starts the count again and, with `--step-back`,
/// moves the tempo S back (never past the starting tempo). A bar played at
/// another tempo (one played before the last step landed) is not counted:
/// each tempo is earned at that tempo. At `until` the tempo stays, unless a
/// loose bar steps it back.
package struct AdaptiveTrainer: Sendable, Equatable {
    package struct Rule: Sendable, Equatable {
        package let start: Tempo
        /// Thousandths of a bpm a step, negative when it slows down.
        package let step: Int64
        package let barsPerStep: Int64
        package let until: Tempo
        /// The furthest a note may lie from its click in a tight bar, in microseconds.
        package let toleranceMicroseconds: Int64
        package let stepsBack: Bool

        package init(start: Tempo, step: Int64, barsPerStep: Int64, until: Tempo, toleranceMicroseconds: Int64, stepsBack: Bool) {
            self.start = start
            self.step = step
            self.barsPerStep = barsPerStep
            self.until = until
            self.toleranceMicroseconds = toleranceMicroseconds
            self.stepsBack = stepsBack
        }

        /// Whether a note `offsetFrames` from its click at `rate` is within the tolerance: exact, in integers.
        package func isTight(offsetFrames: Int64, rate: SampleRate) -> Bool {
            // |offset| / rate ≤ tolerance / 10^6, cross-multiplied in 128 bits: no rounding, no overflow.
            Int128(offsetFrames.magnitude) * 1_000_000 <= Int128(toleranceMicroseconds) * Int128(rate.framesPerSecond)
        }
    }

    /// How a bar was played: every note within the tolerance, or the first click that was not.
    package enum Verdict: Sendable, Equatable {
        /// Every click had a note within the tolerance; `worstFrames` the furthest (signed).
        case tight(worstFrames: Int64)
        /// Beat `beatInBar` (from 0) of the bar had its note `offsetFrames` off (negative: early).
        case off(beatInBar: Int, offsetFrames: Int64)
        /// Beat `beatInBar` (from 0) had no note.
        case missed(beatInBar: Int)

        package var isTight: Bool { if case .tight = self { true } else { false } }
    }

    /// What the trainer did with a bar.
    package enum Decision: Sendable, Equatable {
        /// Counted: `tightBars` of `barsPerStep` towards the next step.
        case counted
        /// Played at a tempo the trainer has left: not counted.
        case passedOver
        /// Not tight: the count starts again, the tempo held.
        case held
        /// The tempo to ask for from the next bar line: a step on, or back.
        case step(Tempo)
        case stepBack(Tempo)
    }

    package let rule: Rule
    /// The tempo the trainer plays (or has asked for): bars are counted at it.
    package private(set) var tempo: Tempo
    /// Tight bars in a row at `tempo`.
    package private(set) var tightBars: Int64 = 0
    /// A bar and how it was played (bars from 0).
    package struct Judged: Sendable, Equatable {
        package let bar: Int64
        package let verdict: Verdict
    }

    /// The last bar counted, for the status line.
    package private(set) var last: Judged?
    /// Whether the last change asked for has not been heard playing yet.
    package private(set) var stepPending = false

    package init(_ rule: Rule) {
        self.rule = rule
        tempo = rule.start
    }

    /// The tempo the next step goes to (the same once `until` is reached).
    package var next: Tempo { moved(by: rule.step, bound: rule.until) }

    /// Whether the tempo has reached `until`.
    package var reached: Bool { tempo == rule.until }

    /// Bar `bar` (from 0), played at `playedAt`, judged `verdict`: what the trainer does.
    package mutating func judge(bar: Int64, playedAt: Tempo, verdict: Verdict) -> Decision {
        guard playedAt == tempo else { return .passedOver }
        stepPending = false
        last = Judged(bar: bar, verdict: verdict)
        guard verdict.isTight else {
            tightBars = 0
            let back = moved(by: -rule.step, bound: rule.start)
            guard rule.stepsBack, back != tempo else { return .held }
            tempo = back
            stepPending = true
            return .stepBack(back)
        }
        guard !reached else { return .counted }
        tightBars += 1
        guard tightBars >= rule.barsPerStep else { return .counted }
        tightBars = 0
        tempo = moved(by: rule.step, bound: rule.until)
        stepPending = true
        return .step(tempo)
    }

    /// The tempo `step` thousandths of a bpm on, not past `bound` in the step's direction.
    private func moved(by step: Int64, bound: Tempo) -> Tempo {
        let moved = tempo.millibeatsPerMinute + step
        return Tempo(clamping: step > 0 ? min(moved, bound.millibeatsPerMinute) : max(moved, bound.millibeatsPerMinute))
    }
}
