import Testing
@testable import MetronomeTiming
@testable import MetronomeLink
import MetronomeTestSupport

/// A timeline in exact integers, as Link keeps one: beat `k` falls at
/// `origin + k · microsPerBeat` (Link holds a tempo as whole microseconds a beat).
struct ExactTimeline: LinkTimeline {
    let origin: Int64
    let microsPerBeat: Int64

    func beat(at time: LinkTime, quantum: Double) -> Double {
        Double(time.micros - origin) / Double(microsPerBeat)
    }

    func time(atBeat beat: Double, quantum: Double) -> LinkTime {
        LinkTime(micros: origin + Int64(beat) * microsPerBeat)
    }
}

/// Every click of consecutive periods of `period` frames over `[0, total)`.
func clicksOverPeriods<Timeline: LinkTimeline>(total: Int64, period: Int64, mapping: FrameTimeMapping, timeline: Timeline, quantum: Int) -> [LinkClick] {
    var clicks: [LinkClick] = []
    var start: Int64 = 0
    while start < total {
        let count = min(period, total - start)
        LinkClickPlacement.clicks(inPeriodFrom: start, frames: count, mapping: mapping, timeline: timeline, quantum: quantum) { clicks.append($0) }
        start += count
    }
    return clicks
}

/// ⌈(t − t₀) · rate / 10⁶⌉: the first frame at or after `t` when frame 0 is heard at `t₀`, by a formula of its own.
func nominalFrame(of time: Int64, zeroAt origin: Int64, rate: Int64) -> Int64 {
    let scaled = Int128(time - origin) * Int128(rate)
    let (quotient, remainder) = scaled.quotientAndRemainder(dividingBy: 1_000_000)
    return Int64(remainder > 0 ? quotient + 1 : quotient)
}

@Suite struct LinkClickPlacementTests {
    @Test(arguments: SampleRate.common)
    func consecutivePeriodsPlayEveryBeatOnceOnItsFrame(rate: Int64) {
        // 137 bpm (437956 µs a beat), beat 0 at 2.000123 s; frame 0 heard at 1 s.
        let timeline = ExactTimeline(origin: 2_000_123, microsPerBeat: 437_956)
        let mapping = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: SampleRate(rate)!)
        let total = 20 * rate
        let expected = (-10...60).map { (beat: Int) -> (beat: Int64, frame: Int64) in
            (beat: Int64(beat), frame: nominalFrame(of: 2_000_123 + Int64(beat) * 437_956, zeroAt: 1_000_000, rate: rate))
        }.filter { $0.frame >= 0 && $0.frame < total }
        #expect(expected.first?.beat == -2)  // beats before the timeline's origin still play
        for period in [61, 1_024, 4_097, 65_536] as [Int64] {
            let clicks = clicksOverPeriods(total: total, period: period, mapping: mapping, timeline: timeline, quantum: 4)
            #expect(clicks.map(\.beat) == expected.map(\.beat), "period \(period)")
            #expect(clicks.map(\.frame) == expected.map(\.frame), "period \(period)")
        }
    }

    @Test func aKnownGrid() {
        // 120 bpm at 48 kHz from frame 0: a beat every 24000 frames, the bell every fourth.
        let timeline = ExactTimeline(origin: 1_000_000, microsPerBeat: 500_000)
        let mapping = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 1_000_000), rate: .standard)
        let clicks = clicksOverPeriods(total: 240_000, period: 1_000, mapping: mapping, timeline: timeline, quantum: 4)
        #expect(clicks.map(\.frame) == evenFrames(10, every: 24_000))
        #expect(clicks.map(\.isDownbeat) == (0..<10).map { $0 % 4 == 0 })
    }

    @Test func downbeatsAreMultiplesOfTheQuantumBeforeZeroToo() {
        #expect((-7...7).filter { LinkClickPlacement.isDownbeat(Int64($0), quantum: 3) } == [-6, -3, 0, 3, 6])
        #expect((-2...2).allSatisfy { LinkClickPlacement.isDownbeat(Int64($0), quantum: 1) })
    }

    @Test(arguments: [44_100, 48_000, 96_000] as [Int64])
    func linksOwnTimelinePlacesItsBeatsOnTheirFrames(rate: Int64) throws {
        // The real session state: 137 bpm from beat 0 at 3 s, a bar of 3.
        let link = try LinkSession(bpm: 120)
        var state = link.captureAppState()
        let origin = LinkTime(micros: 3_000_000)
        state.setTempo(137, at: origin)
        state.requestBeat(0, at: origin, quantum: 3)
        let mapping = FrameTimeMapping(frame: 0, heardAt: LinkTime(micros: 2_500_000), rate: SampleRate(rate)!)
        let total = 30 * rate
        let clicks = clicksOverPeriods(total: total, period: 1_000, mapping: mapping, timeline: state, quantum: 3)
        #expect(clicks.count > 60)
        // Consecutive beats, each on the first frame heard at or after Link's time for it.
        let firstBeat: Int64 = clicks.first?.beat ?? 0, lastBeat: Int64 = clicks.last?.beat ?? -1
        #expect(clicks.map(\.beat) == Array(firstBeat...lastBeat))
        for click in clicks {
            let due = state.time(atBeat: Double(click.beat), quantum: 3)
            #expect(click.frame == nominalFrame(of: due.micros, zeroAt: 2_500_000, rate: rate))
            // The bell is where the session's phase in the bar is zero.
            #expect(click.isDownbeat == (state.phase(at: due, quantum: 3) == 0))
        }
        // The beat before the first is before frame 0, the one after the last is past the end.
        let before = state.time(atBeat: Double(clicks[0].beat - 1), quantum: 3)
        let after = state.time(atBeat: Double(clicks[clicks.count - 1].beat + 1), quantum: 3)
        #expect(nominalFrame(of: before.micros, zeroAt: 2_500_000, rate: rate) < 0)
        #expect(nominalFrame(of: after.micros, zeroAt: 2_500_000, rate: rate) >= total)
    }

    /// Frame `frame` on `line` is heard at or after `time` (exact products, independent of the code).
    func heard(_ frame: Int64, atOrAfter time: LinkTime, on line: FrameTimeMapping) -> Bool {
        let sinceLine: Int128 = Int128(frame - line.frame) * 1_000_000_000_000_000_000
        let due: Int128 = (Int128(time.micros) * 1_000 - Int128(line.nanos)) * Int128(line.nanoframesPerSecond)
        return sinceLine >= due
    }

    /// The clicks of one period are exactly the beats whose first frame is in it.
    func checkPeriod<Timeline: LinkTimeline>(start: Int64, count: Int64, line: FrameTimeMapping, timeline: Timeline) {
        var clicks: [LinkClick] = []
        LinkClickPlacement.clicks(inPeriodFrom: start, frames: count, mapping: line, timeline: timeline, quantum: 4) { clicks.append($0) }
        #expect(clicks.count >= 2)
        guard let first = clicks.first, let last = clicks.last else { return }
        #expect(clicks.map(\.beat) == Array(first.beat...last.beat))
        for click in clicks {
            let due = timeline.time(atBeat: Double(click.beat), quantum: 4)
            #expect(heard(click.frame, atOrAfter: due, on: line) && !heard(click.frame - 1, atOrAfter: due, on: line))
            #expect(click.frame >= start && click.frame < start + count)
        }
        // The beat before was heard by the period's start; the beat after is not heard within it.
        #expect(heard(start - 1, atOrAfter: timeline.time(atBeat: Double(first.beat - 1), quantum: 4), on: line))
        #expect(!heard(start + count - 1, atOrAfter: timeline.time(atBeat: Double(last.beat + 1), quantum: 4), on: line))
    }

    @Test func tenYearsAt192kHzAreExact() throws {
        // Frame 0 heard at 1 s on a line 2.6 ppm fast; 999 bpm (60060 µs a beat) from 1 s.
        let line = FrameTimeMapping(frame: 0, nanos: 1_000_000_000, nanoframesPerSecond: 192_000_500_000_000)
        let start = tenYears * 192_000 + 12_345
        checkPeriod(start: start, count: 40_000, line: line, timeline: ExactTimeline(origin: 1_000_000, microsPerBeat: 60_060))
        // Link's own timeline ten years on: its beats are 5·10⁹ and more.
        let link = try LinkSession(bpm: 120)
        var state = link.captureAppState()
        let origin = LinkTime(micros: 1_000_000)
        state.setTempo(999, at: origin)
        state.requestBeat(0, at: origin, quantum: 4)
        checkPeriod(start: start, count: 40_000, line: line, timeline: state)
    }
}
