import CAllocationCounter
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The BBT the metronome fills as JACK's timebase master, against the clicks
/// the track plays and against fractions worked out here.
@Suite struct TransportTimebaseTests {
    let ticks = Int64(TransportTimebase.ticksPerBeat)

    /// The last tick at or before frame `f` on a grid of ticks `num/den` frames apart
    /// placed at their nearest frame (a half up): `t·num/den < f + 1/2`.
    func lastTick(atFrame f: Int64, framesPerTick num: Int128, over den: Int128) -> Int64 {
        let n = Int128(2 * f + 1) * den, d = 2 * num
        return Int64((n + d - 1) / d - 1)
    }

    @Test(arguments: [(137_000, "4/4", 48_000), (96_000, "6/8", 44_100), (92_125, "7/8", 192_000)])
    func everyClickFrameIsTickZeroOfItsBeat(millibpm: Int64, meter: String, rate: Int64) throws {
        let meter = try Meter(parsing: meter)
        let tempo = try #require(Tempo(millibeatsPerMinute: millibpm))
        var timebase = TransportTimebase(schedule: ClickSchedule(tempo: tempo, meter: meter, rate: try #require(SampleRate(rate))))
        let beats = Int64(meter.beatsPerBar)
        // Beat k at 60000·R·k / m frames, a tick 1920 times less.
        let beatFrames = Fraction(60_000 * Int128(rate), Int128(millibpm))
        for k: Int64 in 0..<100 {
            let frame = (beatFrames * Int128(k)).nearestFrame
            let position = timebase.position(atFrame: frame)
            #expect(position == TransportPosition(bar: k / beats + 1, beat: Int(k % beats) + 1, tick: 0,
                                                  barStartTick: (k - k % beats) * ticks, beatsPerBar: meter.beatsPerBar,
                                                  beatType: meter.noteValue, ticksPerBeat: 1920,
                                                  beatsPerMinute: Double(millibpm) / 1000))
            guard k > 0 else { continue }
            let before = timebase.position(atFrame: frame - 1)
            #expect(before.beat == Int((k - 1) % beats) + 1 && before.bar == (k - 1) / beats + 1)
            // Every frame of the beat before: the tick the fractions give, 0..<1920.
            let previous = (beatFrames * Int128(k - 1)).nearestFrame
            for f in stride(from: previous, to: frame, by: 97) {
                let tick = lastTick(atFrame: f, framesPerTick: 60_000 * Int128(rate), over: Int128(millibpm) * Int128(ticks))
                #expect(Int64(timebase.position(atFrame: f).tick) == tick - (k - 1) * ticks)
            }
            #expect(Int64(before.tick) == lastTick(atFrame: frame - 1, framesPerTick: 60_000 * Int128(rate),
                                                   over: Int128(millibpm) * Int128(ticks)) - (k - 1) * ticks)
            #expect(before.tick < 1920 && before.tick > 1900)
        }
    }

    /// A map with a count-in, a ramp, a meter change and a per-beat list,
    /// once through and looping: the track's clicks are the beats.
    @Test(arguments: [false, true])
    func aMapsClicksAreItsBeatsAtTickZero(loops: Bool) throws {
        let map = try parseMap("2 120\n2 120-150\n2 7/8 150\n1 3/4 100,110,90\n1 6/8 90")
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        let source = TempoPlan.Source.map(map, first: 0, loops: loops)
        let run = try PlannedRun(source, rate: 44_100, rhythm: rhythm, beats: loops ? 90 : nil)
        let plan = TempoPlan(source, rate: .init(unchecked: 44_100), rhythm: rhythm)
        var timebase = TransportTimebase(plan: plan, horizon: loops ? 44_100 * 120 : 0)
        let clicks = run.clicks
        #expect(clicks.count == (loops ? 94 : 4 + 8 + 8 + 14 + 3 + 6))
        var expected: [TransportPosition] = []
        for (index, click) in clicks.enumerated() {
            let position = timebase.position(atFrame: click.frame)
            expected.append(position)
            #expect(position.bar == click.bar + 1 && position.beat == Int(click.beatInBar) + 1 && position.tick == 0,
                    "click \(index) at \(click.frame): \(position)")
            #expect(position.barStartTick == (click.click - Int64(click.beatInBar)) * ticks)
            guard index + 1 < clicks.count else { continue }
            let next = clicks[index + 1].frame
            let last = timebase.position(atFrame: next - 1)
            #expect(last.bar == position.bar && last.beat == position.beat && last.tick > 1900 && last.tick < 1920)
            // The beat's own tempo, from its length: within a frame of 60·R/bpm.
            #expect(abs(60 * 44_100 / position.beatsPerMinute - Double(next - click.frame)) <= 1)
            let middle = timebase.position(atFrame: (click.frame + next) / 2)
            #expect(middle.beat == position.beat && abs(middle.tick - 960) <= 12)
        }
        // The meters and the constant tempos as the map has them (in beats of the meter).
        let meters = expected.map { "\($0.beatsPerBar)/\($0.beatType)" }
        #expect(meters[0..<12].allSatisfy { $0 == "4/4" } && meters[20..<34].allSatisfy { $0 == "7/8" })
        #expect(meters[34..<37].allSatisfy { $0 == "3/4" } && meters[37] == "6/8")
        #expect(expected[0..<12].allSatisfy { $0.beatsPerMinute == 120 } && expected[20..<34].allSatisfy { $0.beatsPerMinute == 300 })
        #expect(expected[13].beatsPerMinute > 120 && expected[19].beatsPerMinute < 150 && expected[19].beatsPerMinute > 145)
        #expect(expected[34...36].map(\.beatsPerMinute) == [100, 110, 90] && expected[37].beatsPerMinute == 180)

        // Relocations, backwards and anywhere: the same answers as in order.
        var relocated = TransportTimebase(plan: plan, horizon: loops ? 44_100 * 120 : 0)
        for index in clicks.indices.reversed() {
            #expect(relocated.position(atFrame: clicks[index].frame) == expected[index])
        }
        for step in 0..<clicks.count {
            let index = (step * 37) % clicks.count
            #expect(relocated.position(atFrame: clicks[index].frame) == expected[index])
        }
    }

    @Test func tenYearsAt192kHzOfAConstantTempo() throws {
        let rate: Int64 = 192_000, millibpm: Int64 = 137_123
        let meter = try Meter(parsing: "7/8")
        var timebase = TransportTimebase(schedule: ClickSchedule(tempo: try #require(Tempo(millibeatsPerMinute: millibpm)),
                                                                 meter: meter, rate: try #require(SampleRate(rate))))
        for frame in [tenYears * rate, tenYears * rate + 12_345, 0, tenYears * rate / 3] {
            let tick = lastTick(atFrame: frame, framesPerTick: 60_000 * Int128(rate), over: Int128(millibpm) * Int128(ticks))
            let beat = tick / ticks
            let position = timebase.position(atFrame: frame)
            #expect(position.bar == beat / 7 + 1 && position.beat == Int(beat % 7) + 1 && Int64(position.tick) == tick % ticks)
            #expect(position.barStartTick == (beat - beat % 7) * ticks)
        }
    }

    @Test func tenYearsAt192kHzOfTheSpeedTrainer() throws {
        // 60 bpm up by 5 every 2 bars of 4/4 to 120, which plays on.
        let rate: Int64 = 192_000
        let source = TempoPlan.Source.trainer(start: Tempo(bpm: 60)!, step: 5_000, barsPerStep: 2, until: Tempo(bpm: 120)!,
                                              meter: .common)
        var timebase = TransportTimebase(plan: TempoPlan(source, rate: .init(unchecked: rate), rhythm: .plain), horizon: 0)
        #expect(timebase.passageCount == 13)
        var start = Fraction(0)
        for bpm in stride(from: 60, to: 120, by: 5) { start = start + Fraction(60 * Int128(rate), Int128(bpm)) * 8 }
        // From click 96 on, 96000 frames a beat and 50 a tick from `start`.
        for frame in [tenYears * rate, tenYears * rate - 1, tenYears * rate + 95_999] {
            let x = Fraction(Int128(frame)) + Fraction(-start.numerator, start.denominator)
            // Ticks past the origin whose nearest frame is at or before x: t·50 < x + 1/2.
            let n = 2 * x.numerator + x.denominator, d = 100 * x.denominator
            let ticksPast = Int64((n + d - 1) / d - 1)
            let beat = 96 + ticksPast / ticks
            let position = timebase.position(atFrame: frame)
            #expect(position.bar == beat / 4 + 1 && position.beat == Int(beat % 4) + 1 && Int64(position.tick) == ticksPast % ticks)
            #expect(position.beatsPerMinute == 120)
        }
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func answersAllocateNothing() throws {
        let map = try parseMap("2 120\n2 120-150\n2 7/8 150")
        var timebase = TransportTimebase(plan: TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain),
                                         horizon: 0)
        var constant = TransportTimebase(schedule: ClickSchedule(tempo: Tempo(bpm: 137)!))
        var sum = timebase.position(atFrame: 5).tick + constant.position(atFrame: 5).tick
        // Int loops: a debug build's Range<Int64> iterator allocates.
        metronome_counting_begin()
        for cycle in 0..<2000 { sum &+= timebase.position(atFrame: Int64(cycle) * 1024).tick }
        for cycle in 0..<200 { sum &+= timebase.position(atFrame: (Int64(cycle) * 7_777_777) % 2_000_000).tick }
        for cycle in 0..<200 { sum &+= constant.position(atFrame: (Int64(cycle) * 7_777_777) % 2_000_000_000).tick }
        let counted = metronome_counting_end()
        #expect(sum != 0)
        #expect(counted == 0)
    }
}
