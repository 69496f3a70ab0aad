import Glibc
import Testing
@testable import MetronomeAudio
import MetronomeTiming
import MetronomeRender
import MetronomeTestSupport

/// `--count voice`: each word placed so that its onset (the contract's) lands
/// on its click's exact frame, the right word on each, the bell kept.
@Suite struct SpokenCountTests {
    /// The contract's onset summed the slow way: each window's squares added
    /// afresh, the loudest found first.
    static func onsetByDefinition(_ samples: [Float], window: Int) -> Int {
        func power(_ end: Int) -> Double {
            (max(0, end - window + 1)...end).reduce(0.0) { $0 + Double(samples[$1]) * Double(samples[$1]) }
        }
        let loudest = samples.indices.map(power).max() ?? 0
        return samples.indices.first { power($0) >= loudest / 100 } ?? 0
    }

    @Test func theOnsetIsWhereTheMillisecondsRMSFirstReachesMinus20dBOfTheLoudest() {
        let rate = SampleRate.standard
        // Quiet breath (−50 dB), a soft consonant (−26 dB) and a loud vowel.
        var samples = [Float](repeating: 0, count: 300)
        samples += (0..<500).map { Float(sin(Double($0) * 0.7)) * 0.003 }
        samples += (0..<400).map { Float(sin(Double($0) * 0.9)) * 0.05 }
        samples += (0..<2_000).map { Float(sin(Double($0) * 0.2)) * 0.8 }
        let onset = CountVoice.onset(of: samples, rate: rate)
        #expect(onset == Self.onsetByDefinition(samples, window: 48))
        // Neither the breath nor the consonant: the vowel's first samples.
        #expect((1_200...1_210).contains(onset), "\(onset)")
        #expect(CountVoice.window(at: try! SampleRate(parsing: "44100")) == 44)
        #expect(CountVoice.onset(of: [0, 0, 0], rate: rate) == 0)
    }

    /// Words each a low lead-in of its own length, then a block whose level names the word.
    static func words(rate: SampleRate) -> [Sound] {
        CountVoice.Word.allCases.map { word in
            let lead = 37 + 11 * word.rawValue
            return Sound(samples: [Float](repeating: 0.0005, count: lead) + [Float](repeating: level(word), count: 300), rate: rate)
        }
    }

    static func level(_ word: CountVoice.Word) -> Float { 0.1 + 0.02 * Float(word.rawValue) }

    /// The words heard at the frames given: the one whose level starts exactly there.
    static func heard(_ output: [Float], at frames: [Int64], gain: Float) -> [CountVoice.Word?] {
        frames.map { frame in
            let index = Int(frame)
            guard index < output.count, index == 0 || abs(output[index - 1]) < 0.01 else { return nil }
            return CountVoice.Word.allCases.first { abs(output[index] - level($0) * gain) < 1e-4 }
        }
    }

    func render(meter: String, rate: SampleRate = .standard, bpm: String = "120", subdivide: Int = 1, subdivided: Bool = false,
                countIn: Int64 = 0, bars: Int64 = 2) throws -> (output: [Float], schedule: ClickSchedule, rhythm: Rhythm) {
        let schedule = ClickSchedule(tempo: try Tempo(parsing: bpm), meter: try Meter(parsing: meter), rate: rate)
        var rhythm = Rhythm.plain
        rhythm.countInBars = countIn
        if subdivide > 1 { rhythm.subdivision = try Subdivision(clicks: .init(parsing: "\(subdivide)"), swing: nil) }
        let silent = Sound(samples: [0], rate: rate)
        let track = ClickTrack(schedule: schedule, beat: silent, bell: silent, length: .bars(bars), rhythm: rhythm,
                               subdivision: silent, count: CountVoice(sounds: Self.words(rate: rate), subdivided: subdivided))
        var output: [Float] = []
        var block = [Float](repeating: 0, count: 1_000)
        while !track.isFinished {
            let produced = block.withUnsafeMutableBufferPointer { track.render(into: $0.baseAddress!, count: 1_000) }
            output += block.prefix(produced)
        }
        return (output, schedule, rhythm)
    }

    @Test(arguments: ["4/4", "7/8", "3/4"], [SampleRate.standard, try! SampleRate(parsing: "44100")])
    func eachBeatsNumberHasItsOnsetOnTheBeatsFrame(meter: String, rate: SampleRate) throws {
        let (output, schedule, _) = try render(meter: meter, rate: rate)
        let beats = Int64(schedule.meter.beatsPerBar)
        let frames = (0..<2 * beats).map { schedule.frame(ofClick: $0) }
        let expected = (0..<2 * beats).map { CountVoice.Word.number($0 % beats + 1) }
        #expect(Self.heard(output, at: frames, gain: 1) == expected)
        // The lead-in before each word's onset is heard before its frame, not cut (but the very first's).
        let second = Int(frames[1]), lead = 37 + 11 * CountVoice.Word.two.rawValue
        #expect(output[second - lead] == 0.0005 && output[second - lead - 1] == 0)
    }

    @Test func voiceSubdividedSaysEAndAOnSixteenthsAndTheNumbersOnTheBeats() throws {
        let (output, schedule, rhythm) = try render(meter: "4/4", subdivide: 4, subdivided: true, bars: 1)
        let subdivision = rhythm.subdivision
        var frames: [Int64] = [], expected: [CountVoice.Word?] = []
        for beat in Int64(0)..<4 {
            for index in 0..<4 {
                let tick = beat * subdivision.ticksPerBeat + subdivision.tick(ofClick: index)
                frames.append(schedule.frame(ofTick: tick, ticksPerBeat: subdivision.ticksPerBeat))
                expected.append(index == 0 ? .number(beat + 1) : [nil, .e, .and, .a][index])
            }
        }
        #expect(Self.heard(output, at: frames, gain: 1) == expected)
    }

    @Test func voiceAloneLeavesTheSubdivisionsToTheirClicks() throws {
        let (output, schedule, _) = try render(meter: "4/4", subdivide: 2, bars: 1)
        let between = schedule.frame(ofTick: 1, ticksPerBeat: 2)
        #expect(output[Int(between) - 50..<Int(between) + 50].allSatisfy { $0 == 0 })
        #expect(Self.heard(output, at: [schedule.frame(ofClick: 1)], gain: 1) == [.two])
    }

    /// A count-in of two bars: "one — two —" at half speed, then "one two three four", 6 dB down; then bar 1 at full level.
    @Test func aCountInIsABandleadersCount() throws {
        let (output, schedule, _) = try render(meter: "4/4", countIn: 2, bars: 1)
        let frames = (0..<12).map { schedule.frame(ofClick: Int64($0)) }
        let countIn = Self.heard(output, at: Array(frames[0..<8]), gain: Rhythm.countInLevel)
        #expect(countIn == [.one, nil, .two, nil, .one, .two, .three, .four])
        #expect(output[Int(frames[1])..<Int(frames[1]) + 300].allSatisfy { abs($0) < 0.01 }, "an unspoken beat of the count-in")
        #expect(Self.heard(output, at: Array(frames[8...]), gain: 1) == [.one, .two, .three, .four])
    }

    /// The bell still rings on the bar's first beat, under "one"; the beats' clicks give way to their words.
    @Test func theBellKeepsItsPlaceAndTheBeatsClickGivesWay() throws {
        let rate = SampleRate.standard
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "120"), meter: .common, rate: rate)
        let silentWords = CountVoice.Word.allCases.map { _ in Sound(samples: [0], rate: rate) }
        let track = ClickTrack(schedule: schedule, beat: Sound(samples: [0.25], rate: rate), bell: Sound(samples: [-0.75], rate: rate),
                               length: .bars(1), count: CountVoice(sounds: silentWords, subdivided: false))
        var output = [Float](repeating: 0, count: Int(schedule.frame(ofClick: 4)))
        output.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        #expect(onsets(output).map(\.value) == [-0.75])
    }

    /// A beat with no word keeps its click: the 17th of a bar of 17.
    @Test func aBeatPastSixteenKeepsItsClick() throws {
        let rate = SampleRate.standard
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), meter: try Meter(parsing: "17/4"), rate: rate)
        let silentWords = CountVoice.Word.allCases.map { _ in Sound(samples: [0], rate: rate) }
        let track = ClickTrack(schedule: schedule, beat: Sound(samples: [0.25], rate: rate), bell: Sound(samples: [-0.75], rate: rate),
                               length: .bars(1), count: CountVoice(sounds: silentWords, subdivided: false))
        var output = [Float](repeating: 0, count: Int(schedule.frame(ofClick: 17)))
        output.withUnsafeMutableBufferPointer { _ = track.render(into: $0.baseAddress!, count: $0.count) }
        #expect(onsets(output).map(\.frame) == [0, schedule.frame(ofClick: 16)])
        #expect(onsets(output).map(\.value) == [-0.75, 0.25])
    }

    @Test func wordsOfAFolderAreReadAndAMissingOneIsNamed() throws {
        let directory = TemporaryDirectory()
        let rate = SampleRate.standard
        for (word, sound) in zip(CountVoice.Word.allCases, Self.words(rate: rate)) where word != .a {
            let path = directory.file(word.fileName)
            try sound.write(to: path, format: OutputFormat(path: path, sampleFormat: .float))
        }
        #expect(throws: SoundError.self) { try CountVoice.load(folder: directory.path, subdivided: false, rate: rate) }
        do {
            _ = try CountVoice.load(folder: directory.path, subdivided: false, rate: rate)
        } catch {
            #expect(error.message == "sound file '\(directory.path)/a.wav' does not exist")
        }
        let a = directory.file("a.wav")
        try Self.words(rate: rate)[CountVoice.Word.a.rawValue].write(to: a, format: OutputFormat(path: a, sampleFormat: .float))
        let voice = try CountVoice.load(folder: directory.path, subdivided: true, rate: rate)
        #expect(voice.onsets == CountVoice.Word.allCases.map { Int64(37 + 11 * $0.rawValue) })
    }
}
