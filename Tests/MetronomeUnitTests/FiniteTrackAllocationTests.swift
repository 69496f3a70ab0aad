import CAllocationCounter
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// The audio thread's render allocates nothing on a track that ends, as on an
/// endless one: a finite track works out its end at every passage change.
@Suite struct FiniteTrackAllocationTests {
    let rate = SampleRate.standard

    func render(_ track: ClickTrack, blocks: Int, feeding feeder: PlanFeeder? = nil, commands: [Int: PracticeCommand] = [:]) -> Int {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        track.clickLog = ClickLog(capacity: 1 << 16)
        track.passageLog = LockFreeQueue(capacity: 1 << 12)
        let queue = LockFreeQueue<PracticeCommand>(capacity: 16)
        track.render(into: buffer, count: 256)
        var allocations = 0
        for index in 0..<blocks {
            feeder?.feed()  // the plan's thread allocates; the audio thread must not
            if let command = commands[index] { queue.push(command) }
            metronome_counting_begin()
            while let command = queue.pop() { track.apply(command) }
            track.render(into: buffer, count: 256)
            allocations += Int(metronome_counting_end())
        }
        return allocations
    }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"),
          arguments: ["2 7/8 133.333 X..x..x\n2 3/4 100,110,120,130,140,150\n2 120-180 0.5", "4 5/4 90\n4 3/4 150"])
    func aMapThatEndsAllocatesNothing(text: String) throws {
        try aMapThatEndsAllocatesNothing(text: text, count: nil)
        // The spoken count's words, each started ahead of its click, the ones between beats too.
        try aMapThatEndsAllocatesNothing(text: text, count: CountVoice(sounds: CountVoice.Word.allCases.map {
            Sound(samples: [Float](repeating: 0.001, count: 20 + $0.rawValue) + [0.3, 0.2, 0.1], rate: rate)
        }, subdivided: true))
    }

    func aMapThatEndsAllocatesNothing(text: String, count: CountVoice?) throws {
        let map = try TempoMap(parsing: Array(text.utf8), name: "map.txt")
        var rhythm = Rhythm()
        rhythm.subdivision = try Subdivision(parsingClicks: "2", swing: nil)
        let plan = TempoPlan(.map(map, first: 0, loops: false), rate: rate, rhythm: rhythm, beats: plan(map).beats(inBars: nil))
        let feeder = PlanFeeder(plan)
        let sounds = ClickSounds(beat: Sound(samples: [0.1, 0.05], rate: rate), bell: Sound(samples: [0.2, 0.1], rate: rate), count: count)
        let beats = try #require(plan.beats(inBars: nil))
        let track = ClickTrack(plan: plan, feeder: feeder, sounds: sounds, length: .beats(beats))
        #expect(render(track, blocks: 6_000, feeding: feeder) == 0)
        #expect(track.isFinished)
    }

    func plan(_ map: TempoMap) -> TempoPlan { TempoPlan(.map(map, first: 0, loops: false), rate: rate, rhythm: .plain) }

    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer owns malloc"))
    func keysAndMeterChangesOnATrackOfBarsAllocateNothing() {
        keysAndMeterChangesOnATrackOfBarsAllocateNothing(count: nil)
        keysAndMeterChangesOnATrackOfBarsAllocateNothing(count: CountVoice(sounds: CountVoice.Word.allCases.map {
            Sound(samples: [Float](repeating: 0.001, count: 400 + $0.rawValue) + [0.3, 0.2, 0.1], rate: rate)
        }, subdivided: false))
    }

    func keysAndMeterChangesOnATrackOfBarsAllocateNothing(count: CountVoice?) {
        let sounds = impulseSounds(rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 120)!, meter: .common, rate: rate),
                               beat: sounds.beat, bell: sounds.bell, length: .bars(40), count: count)
        let commands: [Int: PracticeCommand] = [10: .tempo(Tempo(bpm: 200)!, gain: 1), 50: .beatsPerBar(3), 120: .pause,
                                                130: .resume, 200: .tap(Tempo(bpm: 100)!, tapFrame: 60_000, gain: 0.5),
                                                260: .gain(0.8), 300: .beatsPerBar(7), 400: .tempo(Tempo(bpm: 240)!, gain: 0.9)]
        #expect(render(track, blocks: 3_000, commands: commands) == 0)
    }
}
