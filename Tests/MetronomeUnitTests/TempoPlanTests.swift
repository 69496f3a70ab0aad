import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

@Suite struct TempoPlanTests {
    @Test func constantEntriesLandOnTheExactSumOfTheEntriesBefore() throws {
        // Tempos whose beats are not whole frames, in three meters.
        let map = try parseMap("""
            intro: 2 97.3        # 4/4
            1 7/8 133.333 X..x..x
            3 3/2 61.7 0.5
            """)
        let rate: Int128 = 44_100
        let run = try PlannedRun(.map(map, first: 0, loops: false), rate: 44_100)
        var expected: [Int64] = []
        var start = Fraction(0)
        for (beats, q, d, played) in [(8, "97.3", 4, Array(repeating: true, count: 8)),
                                      (7, "133.333", 8, [true, false, false, true, false, false, true]),
                                      (9, "61.7", 2, Array(repeating: true, count: 9))] {
            let beat = try beatFrames(quarterNotes: q, noteValue: Int128(d), rate: rate)
            for j in 0..<beats where played[j] { expected.append((start + beat * Int128(j)).nearestFrame) }
            start = start + beat * Int128(beats)
        }
        #expect(run.frames == expected)
        // Bells on each bar's first beat; the last entry at half volume.
        let values = run.onsets.map(\.value)
        #expect(values.prefix(8) == [-0.75, 0.25, 0.25, 0.25, -0.75, 0.25, 0.25, 0.25])
        #expect(values[8...10] == [-0.75, 0.25, 0.25])
        #expect(values.suffix(9) == [-0.375, 0.125, 0.125, -0.375, 0.125, 0.125, -0.375, 0.125, 0.125])
        #expect(run.clicks.map(\.bar) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5])
    }

    @Test func aPerBeatListGivesEachBeatItsTempo() throws {
        let map = try parseMap("2 3/4 100,110,120,130,140,150\n1 90")
        let rate: Int128 = 48_000
        let run = try PlannedRun(.map(map, first: 0, loops: false), rate: 48_000)
        var expected: [Int64] = []
        var start = Fraction(0)
        for q in ["100", "110", "120", "130", "140", "150", "90", "90", "90", "90"] {
            expected.append(start.nearestFrame)
            start = start + (try beatFrames(quarterNotes: q, noteValue: 4, rate: rate))
        }
        #expect(run.frames == expected)
        #expect(run.clicks.map(\.sound) == [.bell, .beat, .beat, .bell, .beat, .beat, .bell, .beat, .beat, .beat])
    }

    @Test func aRampPlacesEveryBeatWithinAFrameOfTheExactIntegral() throws {
        let map = try parseMap("1 120\n4 120-140\n3 6/8 140-80\n1 100")
        let rate = 44_100.0
        let run = try PlannedRun(.map(map, first: 0, loops: false), rate: 44_100)
        var exact: [Double] = []
        var start = 0.0
        func ramp(_ t1: Double, _ t2: Double, beats n: Double, noteValue d: Double) {
            for b in 0..<Int(n) {
                exact.append(start + 240 / d * n / (t2 - t1) * log(1 + (t2 - t1) * Double(b) / (n * t1)) * rate)
            }
            start += 240 / d * n / (t2 - t1) * log(t2 / t1) * rate
        }
        for b in 0..<4 { exact.append(Double(b) * 0.5 * rate) }
        start = 2 * rate
        ramp(120, 140, beats: 16, noteValue: 4)
        ramp(140, 80, beats: 18, noteValue: 8)
        for b in 0..<4 { exact.append(start + Double(b) * 0.6 * rate) }
        #expect(run.frames.count == exact.count)
        for (frame, position) in zip(run.frames, exact) {
            #expect(abs(Double(frame) - position) <= 0.5 + 1e-6, "frame \(frame) for \(position)")
        }
    }

    @Test func theSpeedTrainerStartsEveryStepOnItsExactPosition() throws {
        // 60 bpm, +7 every 2 bars, up to 100 (the last step is 4, not 7).
        let meter = try Meter(parsing: "3/4")
        let source = TempoPlan.Source.trainer(start: Tempo(bpm: 60)!, step: 7_000, barsPerStep: 2, until: Tempo(bpm: 100)!, meter: meter)
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        let run = try PlannedRun(source, rate: 44_100, rhythm: rhythm, beats: 16 * 3)
        var expected: [Int64] = []
        var start = Fraction(0)
        // The count-in at the first tempo, then steps of two bars.
        var tempos = [60, 60, 67, 67, 74, 74, 81, 81, 88, 88, 95, 95, 100, 100, 100, 100, 100]
        tempos.insert(60, at: 0)
        for bpm in tempos.prefix(17) {
            let beat = Fraction(60 * 44_100, Int128(bpm))
            for j in 0..<3 { expected.append((start + beat * Int128(j)).nearestFrame) }
            start = start + beat * 3
        }
        #expect(run.frames == expected)
        #expect(run.clicks.first?.bar == -1 && run.clicks.last?.bar == 15)
    }

    @Test func subdivisionsAndTheSecondVoiceFollowAnOriginBetweenFrames() throws {
        // 97.3 quarter notes a minute: entry two starts between frames.
        let map = try parseMap("1 97.3\n1 3/4 111.1")
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        rhythm.polyrhythm = try Polyrhythm(parsing: "2:3", beatsPerBar: 3)
        let rate: Int128 = 48_000
        let run = try PlannedRun(.map(map, first: 0, loops: false), rate: 48_000, rhythm: rhythm)
        let first = try beatFrames(quarterNotes: "97.3", noteValue: 4, rate: rate)
        let second = try beatFrames(quarterNotes: "111.1", noteValue: 4, rate: rate)
        let start = first * 4
        let subdivisions = run.clicks.filter { $0.sound == .subdivision && $0.click >= 4 }.map(\.frame)
        let expectedSubdivisions = (4..<7).flatMap { (beat: Int) -> [Int64] in
            (1..<3).map { (start + Fraction(second.numerator * Int128(3 * (beat - 4) + $0), second.denominator * 3)).nearestFrame }
        }
        #expect(subdivisions == expectedSubdivisions)
        // 2 against 3 in the 3/4 bar: at its start and one and a half beats on.
        let polyrhythm = run.clicks.filter { $0.sound == .polyrhythm && $0.click >= 4 }.map(\.frame)
        #expect(polyrhythm == [start.nearestFrame, (start + Fraction(second.numerator * 3, second.denominator * 2)).nearestFrame])
    }

    @Test func aLoopingMapStartsAtItsLabelAndComesBackToIt() throws {
        let map = try parseMap("a: 1 2/4 100\nb: 1 2/4 150\nc: 1 2/4 200")
        let first = try #require(map.entry(labelled: "b"))
        let source = TempoPlan.Source.map(map, first: first, loops: true)
        #expect(TempoPlan(source, rate: .standard, rhythm: .plain).beats(inBars: nil) == nil)
        #expect(TempoPlan(source, rate: .standard, rhythm: .plain).beats(inBars: 5) == 10)
        let run = try PlannedRun(source, rate: 48_000, beats: 10)
        var expected: [Int64] = []
        var start = Fraction(0)
        for q in ["150", "150", "200", "200", "150", "150", "200", "200", "150", "150"] {
            expected.append(start.nearestFrame)
            start = start + (try beatFrames(quarterNotes: q, noteValue: 4, rate: 48_000))
        }
        #expect(run.frames == expected)
    }

    /// Plans of every kind: constant entries, per-beat lists with repeated
    /// tempos, ramps, a loop from a label, the trainer, a count-in, subdivisions and a second voice.
    static func plans() throws -> [TempoPlan] {
        let map = try parseMap("""
            a: 2 97.3
            1 7/8 133.333 X..x..x
            b: 2 3/4 100,110,100,97.3,110,100
            3 120-140
            1 90
            2 6/8 140-80 0.5
            1 3/4 61.7,61.7,200
            """)
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        rhythm.polyrhythm = try Polyrhythm(parsing: "2:3", beatsPerBar: 3)
        let b = try #require(map.entry(labelled: "b"))
        let trainer = TempoPlan.Source.trainer(start: Tempo(bpm: 60)!, step: 7_000, barsPerStep: 2, until: Tempo(bpm: 100)!,
                                               meter: try Meter(parsing: "3/4"))
        return [TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain),
                TempoPlan(.map(map, first: 0, loops: false), rate: try #require(SampleRate(44_100)), rhythm: rhythm),
                TempoPlan(.map(map, first: b, loops: true), rate: .standard, rhythm: .plain, beats: 150),
                TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain, beats: 40),
                TempoPlan(trainer, rate: .standard, rhythm: rhythm, beats: 60)]
    }

    @Test func skippingAheadLandsOnThePassagesWalkingMakes() throws {
        for plan in try Self.plans() {
            var walk = plan
            var walked: [Passage] = []
            while let passage = walk.next(), walked.count < 200 { walked.append(passage) }
            let lastClick = (walked.last?.firstClick ?? 0) + 10
            for target in 0...lastClick {
                var skipped = plan
                skipped.skip(upTo: target)
                // The passage that plays `target` (or the first, or the last), and the ones after it, bit for bit.
                let index = walked.lastIndex { $0.firstClick <= target } ?? 0
                var following: [Passage] = []
                while following.count < 3, let passage = skipped.next() { following.append(passage) }
                #expect(following == Array(walked[index...].prefix(3)), "target \(target)")
            }
        }
    }

    @Test func theEndIsWhereWalkingEveryPassageEnds() throws {
        for plan in try Self.plans() {
            // Walking, as the plan found its end before it could skip.
            func walkedEnd(_ limit: Int64?) -> Int64? {
                var walk = plan
                guard let limit else {
                    guard plan.beats(inBars: nil) != nil else { return nil }
                    while walk.next() != nil {}
                    return walk.position.nearestFrame
                }
                var last: Passage?
                while let passage = walk.next(), passage.firstClick < limit { last = passage }
                return last.map { $0.frame(ofClick: limit) } ?? plan.firstSchedule.frame(ofClick: limit)
            }
            for limit in Int64(0)...120 { #expect(plan.endFrame(beats: limit) == walkedEnd(limit), "limit \(limit)") }
            #expect(plan.endFrame(beats: nil) == walkedEnd(nil))
        }
        // A map that ends: the nearest frame to the exact sum of every beat (Fraction, independent of the plan).
        let map = try parseMap("2 97.3\n1 3/4 100,110,100\n1 7/8 133.333")
        let rate: Int128 = 44_100
        var end = Fraction(0)
        for (beats, q, d) in [(8, "97.3", 4), (1, "100", 4), (1, "110", 4), (1, "100", 4), (7, "133.333", 8)] {
            end = end + (try beatFrames(quarterNotes: q, noteValue: Int128(d), rate: rate)) * Int128(beats)
        }
        let plan = TempoPlan(.map(map, first: 0, loops: false), rate: try #require(SampleRate(44_100)), rhythm: .plain)
        #expect(plan.endFrame(beats: nil) == end.nearestFrame)
    }

    @Test func theEndOfAMillionBeatMapIsFoundWithoutWalkingIt() throws {
        // 250,000 bars of a ramp and a million beats of a per-beat list: walking
        // every passage takes minutes in a debug build; the end is a few sums.
        let ramp = try parseMap("250000 999-1000")
        let bpms: [Int128] = [100, 101, 103, 107, 120, 128, 131, 140]
        let tempos = (0..<1_000_000).map { String(bpms[$0 % bpms.count]) }.joined(separator: ",")
        let list = try parseMap("250000 \(tempos)")
        let clock = ContinuousClock()
        let start = clock.now
        let rampPlan = TempoPlan(.map(ramp, first: 0, loops: false), rate: .standard, rhythm: .plain)
        let rampEnd = try #require(rampPlan.endFrame(beats: nil))
        let listPlan = TempoPlan(.map(list, first: 0, loops: false), rate: .standard, rhythm: .plain)
        let listEnd = try #require(listPlan.endFrame(beats: nil))
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(5), "\(elapsed)")
        // The ramp's closed form: (240/4) * n / (t2 - t1) * ln(t2 / t1) seconds.
        let seconds = 60.0 * 1_000_000 / 1 * log(1000.0 / 999.0)
        #expect(abs(Double(rampEnd) - seconds * 48_000) <= 1)
        // The list: 8 tempos, each 125,000 times, exactly.
        var exact = Fraction(0)
        for bpm in bpms { exact = exact + Fraction(60 * 48_000, bpm) * 125_000 }
        #expect(listEnd == exact.nearestFrame)
    }

    @Test func followingAPlanAllocatesNothingOnTheAudioThread() throws {
        let map = try parseMap("1 7/8 133.333 X..x..x\n2 3/4 100,110,120,130,140,150\n2 120-180 0.5")
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        rhythm.polyrhythm = try Polyrhythm(parsing: "2:3", beatsPerBar: 3)
        let plan = TempoPlan(.map(map, first: 0, loops: true), rate: .standard, rhythm: rhythm)
        let feeder = PlanFeeder(plan)
        let rate = SampleRate.standard
        let sounds = ClickSounds(beat: Sound(samples: [0.1], rate: rate), bell: Sound(samples: [0.2], rate: rate))
        let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds)
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        track.passageLog = LockFreeQueue(capacity: 1 << 12)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        track.render(into: buffer, count: 256)
        var allocations = 0
        for _ in 0..<8_000 {
            feeder.feed()  // the plan's thread allocates; the audio thread must not
            metronome_counting_begin()
            track.render(into: buffer, count: 256)
            allocations += Int(metronome_counting_end())
        }
        #expect(allocations == 0)
        // 8000 blocks of 256 frames: 42.7 s, several passes of the 9.6 s map.
        #expect(log.drain().filter { $0.sound == .bell && $0.bar >= 0 }.count > 5 * 3)
    }
}
