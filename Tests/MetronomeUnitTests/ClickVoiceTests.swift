import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// A period rendered by voice (`--jack-ports split`): every click in the
/// buffer of its voice, and the four buffers summed the mono render.
@Suite struct ClickVoiceTests {
    let rate = SampleRate(44_100)!

    /// A ringing sound, different for each voice, whose samples are small
    /// binary fractions (k/1024, |k| <= 8): with the levels the track applies
    /// (1, 0.5, 0.25, 0.75) every product and every sum of overlapping sounds
    /// is exact in Float, in any order, so the sum of the four buffers must
    /// equal the mono render bit for bit, however the sounds overlap.
    func ringing(_ seed: Int, frames: Int) -> Sound {
        Sound(samples: (0..<frames).map { Float(($0 * (7 + 2 * seed) + seed) % 17 - 8) / 1_024 }, rate: rate)
    }

    var ringingSounds: ClickSounds {
        ClickSounds(beat: ringing(1, frames: 12_000), bell: ringing(2, frames: 12_000), subdivision: ringing(3, frames: 6_000),
                    polyrhythm: ringing(4, frames: 9_000))
    }

    /// A track as each case asks, with the commands a key would send at those blocks; made twice alike.
    func makeTrack(_ name: String, sounds: ClickSounds) throws -> (track: ClickTrack, feeder: PlanFeeder?, commands: [Int: PracticeCommand]) {
        var rhythm = Rhythm()
        switch name {
        case "tempo map":
            // A pattern, a ramp, per-beat tempi, an entry at half volume, meter changes; with subdivisions and a second voice.
            let map = try parseMap("2 7/8 133.333 X..x..x\n2 3/4 100,110,120,130,140,150\n2 4/4 120-180 0.5\n3 2+3/8 160")
            rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
            rhythm.polyrhythm = try Polyrhythm(parsing: "2:3", beatsPerBar: 3)
            let plan = TempoPlan(.map(map, first: 0, loops: true), rate: rate, rhythm: rhythm)
            let feeder = PlanFeeder(plan)
            return (ClickTrack(plan: plan, feeder: feeder, sounds: sounds), feeder, [:])
        case "subdivisions and swing":
            rhythm.subdivision = try Subdivision(parsingClicks: nil, swing: "0.667")
            rhythm.subdivisionLevel = 0.75
        case "triplets":
            rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        case "polyrhythm":
            rhythm.polyrhythm = try Polyrhythm(parsing: "3:2", beatsPerBar: 4)
            rhythm.subdivision = try Subdivision(parsingClicks: "4", swing: nil)
        case "accents and count-in":
            rhythm.countInBars = 2
            rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
            let schedule = ClickSchedule(tempo: Tempo(bpm: 200)!, meter: try Meter(parsing: "2+2+3/8"), rate: rate)
            return (ClickTrack(schedule: schedule, sounds: sounds, rhythm: rhythm), nil,
                    [300: .beatsPerBar(5), 600: .tempo(Tempo(bpm: 90)!, gain: 1)])
        case "muting":
            rhythm.countInBars = 1
            rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
            rhythm.polyrhythm = try Polyrhythm(parsing: "5:4", beatsPerBar: 4)
            rhythm.muting = try BeatMuting(gap: "2:1", randomMute: "20", seed: "3")
        case "keys":
            rhythm.pattern = try BeatPattern(parsing: "X.xX", beatsPerBar: 4)
            rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
            rhythm.polyrhythm = try Polyrhythm(parsing: "3:4", beatsPerBar: 4)
            let schedule = ClickSchedule(tempo: Tempo(bpm: 137)!, meter: .common, rate: rate)
            return (ClickTrack(schedule: schedule, sounds: sounds, rhythm: rhythm), nil,
                    [100: .tempo(Tempo(bpm: 171)!, gain: 1), 250: .pause, 290: .resume, 400: .mute(true), 450: .mute(false),
                     500: .tap(Tempo(bpm: 99)!, tapFrame: 500 * 997 - 3_000, gain: 1), 700: .beatsPerBar(3)])
        default:
            Issue.record("no case \(name)")
        }
        let schedule = ClickSchedule(tempo: Tempo(bpm: 152)!, meter: .common, rate: rate)
        return (ClickTrack(schedule: schedule, sounds: sounds, rhythm: rhythm), nil, [:])
    }

    static let cases = ["tempo map", "subdivisions and swing", "triplets", "polyrhythm", "accents and count-in", "muting", "keys"]

    /// Four buffers of `count` frames, and a mono one.
    final class Buffers {
        let count: Int
        let mono: UnsafeMutablePointer<Float>
        let storage: UnsafeMutablePointer<Float>
        var voices: VoiceBuffers {
            VoiceBuffers(bell: storage, beat: storage + count, subdivision: storage + 2 * count, polyrhythm: storage + 3 * count)
        }
        init(count: Int) {
            self.count = count
            mono = .allocate(capacity: count)
            storage = .allocate(capacity: 4 * count)
        }
        deinit {
            mono.deallocate()
            storage.deallocate()
        }
    }

    @Test(arguments: cases)
    func theFourVoicesSumToTheMonoRenderSampleForSample(name: String) throws {
        let mono = try makeTrack(name, sounds: ringingSounds), split = try makeTrack(name, sounds: ringingSounds)
        let buffers = Buffers(count: 997)  // odd blocks: clicks and sounds cross block edges anywhere
        var mismatches = 0, firstMismatch: (block: Int, frame: Int, mono: Float, sum: Float)?
        var sounding = [0, 0, 0, 0], overlaps = 0
        for block in 0..<1_000 {  // 22.6 s
            mono.feeder?.feed()
            split.feeder?.feed()
            if let command = mono.commands[block] {
                mono.track.apply(command)
                split.track.apply(command)
            }
            let produced = mono.track.render(into: buffers.mono, count: buffers.count)
            #expect(split.track.render(into: buffers.voices, count: buffers.count) == produced)
            let voices = buffers.voices
            for frame in 0..<buffers.count {
                let sum = voices.sum(at: frame)
                if sum != buffers.mono[frame] {
                    mismatches += 1
                    if firstMismatch == nil { firstMismatch = (block, frame, buffers.mono[frame], sum) }
                }
                let playing = ClickVoice.allCases.filter { voices[$0][frame] != 0 }
                for voice in playing { sounding[voice.rawValue] += 1 }
                if playing.count > 1 { overlaps += 1 }
            }
        }
        #expect(mismatches == 0, "first: \(String(describing: firstMismatch))")
        #expect(mono.track.position == split.track.position)
        // The sum was put to the test: voices sound together, and each voice the case has sounds.
        #expect(overlaps > 10_000)
        #expect(sounding[ClickVoice.bell.rawValue] > 0 && sounding[ClickVoice.beat.rawValue] > 0 && sounding[ClickVoice.subdivision.rawValue] > 0)
        #expect((sounding[ClickVoice.polyrhythm.rawValue] > 0) == ["tempo map", "polyrhythm", "muting", "keys"].contains(name))
    }

    /// Impulses, one sample each: a buffer's nonzero frames are the clicks it got.
    @Test func eachClickGoesOnlyToTheBufferOfItsVoice() throws {
        var rhythm = Rhythm()
        rhythm.countInBars = 1
        rhythm.subdivision = try Subdivision(parsingClicks: "3", swing: nil)
        rhythm.polyrhythm = try Polyrhythm(parsing: "5:4", beatsPerBar: 7)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 240)!, meter: try Meter(parsing: "2+2+3/8"), rate: rate)
        let sounds = ClickSounds(beat: Sound(samples: [0.25], rate: rate), bell: Sound(samples: [-0.75], rate: rate),
                                 subdivision: Sound(samples: [0.09375], rate: rate), polyrhythm: Sound(samples: [0.015625], rate: rate))
        let track = ClickTrack(schedule: schedule, sounds: sounds, length: .bars(8), rhythm: rhythm)
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        let buffers = Buffers(count: 509)
        var heard: [ClickVoice: [Int64]] = [:]
        while !track.isFinished {
            let start = track.position
            let produced = track.render(into: buffers.voices, count: buffers.count)
            for voice in ClickVoice.allCases {
                for frame in 0..<produced where buffers.voices[voice][frame] != 0 { heard[voice, default: []].append(start + Int64(frame)) }
            }
        }
        let clicks = log.drain()
        func started(_ sounds: Set<ClickSound>) -> [Int64] { clicks.filter { sounds.contains($0.sound) }.map(\.frame).sorted() }
        // The bell sound (each bar's first beat, the additive meter's accents) to `bell`; the rest each to its own.
        #expect(heard[.bell] == started([.bell, .accent]))
        #expect(heard[.beat] == started([.beat]))
        #expect(heard[.subdivision] == started([.subdivision]))
        #expect(heard[.polyrhythm] == started([.polyrhythm]))
        // Nine bars (the count-in and eight), each a bell and two accents, four beats, fourteen subdivisions, five or more of the second voice.
        #expect(heard[.bell]?.count == 27 && heard[.beat]?.count == 36 && heard[.subdivision]?.count == 126)
        #expect((heard[.polyrhythm]?.count ?? 0) >= 45)
        #expect(clicks.filter { $0.sound == .bell }.allSatisfy { $0.beatInBar == 0 })
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func renderingByVoiceAllocatesNothing() throws {
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 400)!, meter: try Meter(parsing: "2+2+3/8"), rate: rate),
                               sounds: ringingSounds, rhythm: try everyVoiceRhythm())
        let log = ClickLog(capacity: 1 << 16)
        track.clickLog = log
        let buffers = Buffers(count: 256)
        let voices = buffers.voices
        track.render(into: voices, count: 256)
        metronome_counting_begin()
        for _ in 0..<2_000 { track.render(into: voices, count: 256) }
        track.apply(.tempo(Tempo(bpm: 500)!, gain: 1))
        track.apply(.beatsPerBar(5))
        track.skip(to: track.position + 10_000)
        for _ in 0..<2_000 { track.render(into: voices, count: 256) }
        let allocations = metronome_counting_end()
        #expect(allocations == 0)
        #expect(log.drain().contains { $0.sound == .polyrhythm })
    }
}
