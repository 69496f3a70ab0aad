import CAllocationCounter
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// Impulses that say which sound played: one sample each, exact binary fractions.
private enum Impulse {
    static let beat: Float = 0.25
    static let bell: Float = -0.75
    static let subdivision: Float = 0.09375
    static let polyrhythm: Float = 0.015625
}

/// `floor(beats * 60 * R / B + 1/2)` for a position of `numerator / denominator`
/// beats, B in thousandths of a bpm: computed here in 128-bit integers,
/// independently of the engine's arithmetic.
private func exactFrame(beats numerator: Int64, over denominator: Int64 = 1, millibpm: Int64, rate: Int64) -> Int64 {
    let top = Int128(numerator) * 2 * 60_000 * Int128(rate) + Int128(denominator) * Int128(millibpm)
    return Int64(top / (2 * Int128(denominator) * Int128(millibpm)))
}

/// The test support's onset finder, under a name the struct below does not shadow.
private func findOnsets(in samples: [Float]) -> [(frame: Int64, value: Float)] { onsets(samples) }

/// A track rendered in odd-sized blocks (so block edges fall anywhere), with
/// the onsets heard in it and every click it logged.
private struct Rendered {
    let onsets: [(frame: Int64, value: Float)]
    let clicks: [StartedClick]

    init(bpm: String, meter: String = "4/4", rate: Int64 = 48_000, bars: Int64, rhythm: Rhythm,
         commands: [(frame: Int64, command: PracticeCommand)] = []) throws {
        let sampleRate = try #require(SampleRate(rate))
        let schedule = ClickSchedule(tempo: try Tempo(parsing: bpm), meter: try Meter(parsing: meter), rate: sampleRate)
        let track = ClickTrack(schedule: schedule, beat: Sound(samples: [Impulse.beat], rate: sampleRate),
                               bell: Sound(samples: [Impulse.bell], rate: sampleRate), length: .bars(bars), rhythm: rhythm,
                               subdivision: Sound(samples: [Impulse.subdivision], rate: sampleRate),
                               polyrhythm: Sound(samples: [Impulse.polyrhythm], rate: sampleRate))
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        var samples: [Float] = []
        var pending = commands[...]
        let block = 997
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { buffer.deallocate() }
        while !track.isFinished {
            while let next = pending.first, next.frame <= track.position {
                track.apply(next.command)
                pending.removeFirst()
            }
            let frames = track.render(into: buffer, count: block)
            samples.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames))
        }
        onsets = findOnsets(in: samples)
        clicks = log.drain()
    }

    var frames: [Int64] { onsets.map(\.frame) }
    var values: [Float] { onsets.map(\.value) }
}

@Suite struct RhythmTests {
    @Test func anAdditiveMeterAccentsTheFirstBeatOfEachGroup() throws {
        let meter = try Meter(parsing: "2+2+3/8")
        #expect(meter.beatsPerBar == 7 && meter.noteValue == 8 && meter.description == "2+2+3/8")
        let run = try Rendered(bpm: "160", meter: "2+2+3/8", bars: 3, rhythm: .plain)
        // --bpm counts the meter's note value: 160 eighth notes a minute.
        #expect(run.frames == (0..<21).map { exactFrame(beats: $0, millibpm: 160_000, rate: 48_000) })
        let accent = Impulse.bell * Rhythm.accentLevel
        let bar: [Float] = [Impulse.bell, Impulse.beat, accent, Impulse.beat, accent, Impulse.beat, Impulse.beat]
        #expect(run.values == bar + bar + bar)
        #expect(run.clicks.map(\.sound).prefix(7) == [.bell, .beat, .accent, .beat, .accent, .beat, .beat])
    }

    @Test func aPatternChoosesBellBeatOrSilenceForEachBeat() throws {
        var rhythm = Rhythm()
        rhythm.pattern = try BeatPattern(parsing: "X.xX", beatsPerBar: 4)
        let run = try Rendered(bpm: "90", rate: 44_100, bars: 2, rhythm: rhythm)
        let beats: [Int64] = [0, 2, 3, 4, 6, 7]
        #expect(run.frames == beats.map { exactFrame(beats: $0, millibpm: 90_000, rate: 44_100) })
        #expect(run.values == [Impulse.bell, Impulse.beat, Impulse.bell, Impulse.bell, Impulse.beat, Impulse.bell])
    }

    @Test(arguments: [("137.125", Int64(44_100), 3), ("96", 44_100, 2), ("333.333", 48_000, 9), ("61", 8_000, 7)])
    func subdivisionClicksSitOnTheExactSubdivisionGrid(bpm: String, rate: Int64, clicks: Int) throws {
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "\(clicks)", swing: nil)
        let run = try Rendered(bpm: bpm, rate: rate, bars: 8, rhythm: rhythm)
        let millibpm = try Tempo(parsing: bpm).millibeatsPerMinute
        let n = Int64(clicks)
        // Subdivision click j sits at floor(j * 60 R / (B N) + 1/2); every Nth is a beat.
        #expect(run.frames == (0..<(32 * n)).map { exactFrame(beats: $0, over: n, millibpm: millibpm, rate: rate) })
        for (j, onset) in run.onsets.enumerated() where j % clicks != 0 {
            #expect(onset.value == Impulse.subdivision, "click \(j)")
        }
        #expect(run.clicks.filter { $0.sound == .subdivision }.count == 32 * (clicks - 1))
    }

    @Test func swingDelaysTheSecondOfTwoClicks() throws {
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: nil, swing: "0.667")
        #expect(rhythm.subdivision.clicksPerBeat == 2)
        let run = try Rendered(bpm: "120", rate: 44_100, bars: 4, rhythm: rhythm)
        let offbeats = run.onsets.filter { $0.value == Impulse.subdivision }.map(\.frame)
        #expect(offbeats == (0..<16).map { exactFrame(beats: $0 * 1000 + 667, over: 1000, millibpm: 120_000, rate: 44_100) })
        #expect(run.onsets.filter { $0.value != Impulse.subdivision }.map(\.frame)
                == (0..<16).map { exactFrame(beats: $0, millibpm: 120_000, rate: 44_100) })
    }

    @Test func aPolyrhythmPlaysItsClicksEvenlyAgainstTheBeats() throws {
        var rhythm = Rhythm()
        rhythm.polyrhythm = try Polyrhythm(parsing: "3:2", beatsPerBar: 4)
        let run = try Rendered(bpm: "100", rate: 44_100, bars: 2, rhythm: rhythm)
        // Three clicks every two beats, from each bar start: at 0, 2/3, 4/3, 2, 8/3, 10/3 beats of the bar.
        let poly = (0..<2).flatMap { bar in (0..<6).map { bar * 12 + $0 * 2 } }
        let expected = Set(poly.map { exactFrame(beats: Int64($0), over: 3, millibpm: 100_000, rate: 44_100) })
        let beats = (0..<8).map { exactFrame(beats: Int64($0), millibpm: 100_000, rate: 44_100) }
        #expect(Set(run.frames) == expected.union(beats))
        for onset in run.onsets {
            let main: Float = beats.firstIndex(of: onset.frame).map { $0 % 4 == 0 ? Impulse.bell : Impulse.beat } ?? 0
            let second: Float = expected.contains(onset.frame) ? Impulse.polyrhythm : 0
            #expect(onset.value == main + second, "frame \(onset.frame)")
        }
        // A polyrhythm that does not divide the bar is cut at the bar's end and starts again.
        var fiveFour = Rhythm()
        fiveFour.polyrhythm = try Polyrhythm(parsing: "2:3", beatsPerBar: 5)
        let cut = try Rendered(bpm: "60", meter: "5/4", rate: 8_000, bars: 2, rhythm: fiveFour)
        let seconds = cut.clicks.filter { $0.sound == .polyrhythm }.map(\.frame)
        #expect(seconds == [0, 12_000, 24_000, 36_000, 40_000, 52_000, 64_000, 76_000])
    }

    @Test func aCountInPlaysSofterBarsBeforeBarOne() throws {
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        let run = try Rendered(bpm: "120", meter: "3/4", bars: 2, rhythm: rhythm)
        // --bars counts the bars after the count-in: 3 bars in all, on one grid.
        #expect(run.frames == (0..<9).map { exactFrame(beats: $0, millibpm: 120_000, rate: 48_000) })
        let soft = Rhythm.countInLevel
        #expect(run.values == [Impulse.bell * soft, Impulse.beat * soft, Impulse.beat * soft,
                               Impulse.bell, Impulse.beat, Impulse.beat, Impulse.bell, Impulse.beat, Impulse.beat])
        #expect(run.clicks.map(\.bar) == [-1, -1, -1, 0, 0, 0, 1, 1, 1])
    }

    @Test func theGapTrainerMutesWholeBarsAndKeepsCounting() throws {
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
        rhythm.muting = try BeatMuting(gap: "2:1", randomMute: nil, seed: nil)
        let run = try Rendered(bpm: "150", meter: "2/4", bars: 6, rhythm: rhythm)
        // Count-in (bar -1) plays; then bars 0, 1 play, 2 is muted, 3, 4 play, 5 is muted.
        #expect(Set(run.clicks.map(\.bar)) == [-1, 0, 1, 3, 4])
        let expected: [Int64] = [-1, 0, 1, 3, 4].flatMap { (bar: Int) -> [Int64] in (0..<4).map { Int64((bar + 1) * 4 + $0) } }
        #expect(run.frames == expected.map { exactFrame(beats: $0, over: 2, millibpm: 150_000, rate: 48_000) })
    }

    @Test func randomMutingIsRepeatableForASeedAndSparesTheCountIn() throws {
        func muted(seed: String) throws -> Set<Int64> {
            var rhythm = Rhythm()
            rhythm.countInBars = 2
            rhythm.muting = try BeatMuting(gap: nil, randomMute: "25", seed: seed)
            let run = try Rendered(bpm: "1000", bars: 500, rhythm: rhythm)
            let played = Set(run.clicks.map(\.click))
            return Set(0..<Int64(2008)).subtracting(played)
        }
        let first = try muted(seed: "7"), again = try muted(seed: "7"), other = try muted(seed: "8")
        #expect(first == again)
        #expect(first != other)
        #expect(first.allSatisfy { $0 >= 8 })  // never in the two count-in bars
        #expect((400...600).contains(first.count), "\(first.count) of 2000 muted")
    }

    @Test func aTempoChangeLeavesTheBeatBeforeItsSubdivisionsOnTheOldGrid() throws {
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
        let new = Tempo(bpm: 150)!
        // At 120 a beat is 24000 frames; the command arrives at 100000, between beat 4 (96000) and its "and" (108000).
        let run = try Rendered(bpm: "120", bars: 3, rhythm: rhythm, commands: [(100_000, .tempo(new, gain: 1))])
        let old = (0..<10).map { exactFrame(beats: $0, over: 2, millibpm: 120_000, rate: 48_000) }
        // Beat 5 keeps its frame (120000); the new grid counts from it.
        let after = (1..<14).map { 120_000 + exactFrame(beats: $0, over: 2, millibpm: 150_000, rate: 48_000) }
        #expect(run.frames == old + [120_000] + after)
    }

    @Test func playingEveryVoiceAllocatesNothing() throws {
        let rate = SampleRate.standard
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 400)!, meter: try Meter(parsing: "2+2+3/8"), rate: rate),
                               beat: Sound(samples: [0.1], rate: rate), bell: Sound(samples: [0.2], rate: rate), rhythm: try everyVoiceRhythm())
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        track.render(into: buffer, count: 256)
        metronome_counting_begin()
        for _ in 0..<2_000 { track.render(into: buffer, count: 256) }
        track.apply(.tempo(Tempo(bpm: 500)!, gain: 1))
        track.apply(.beatsPerBar(5))
        for _ in 0..<2_000 { track.render(into: buffer, count: 256) }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        #expect(log.drain().contains { $0.sound == .polyrhythm })
    }
}
