import Foundation
import Testing
import MetronomeTiming
import MetronomeAudio
import MetronomeRender
import MetronomeTestSupport

/// `--count voice` through the binary: rendered files whose words' onsets are
/// measured apart from the metronome (`Tests/Tools/count_onsets.py`: Python's
/// standard library, the contract summed in integers), a MIDI file's lyrics
/// read by mido, and `--voice` folders good and bad.
@Suite struct SpokenCountFileTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var meter: String
        var rate: Int64
        var bpm: String
        var subdivide = 1
        var countIn: Int64 = 0
        var builtIn = false
        var testDescription: String {
            "\(meter) at \(rate) Hz, \(bpm) bpm" + (subdivide > 1 ? ", e-and-a" : "") + (countIn > 0 ? ", \(countIn) bars' count-in" : "")
                + (builtIn ? ", the built-in voice" : ", espeak-ng's words")
        }
    }

    static let cases = [
        Case(meter: "4/4", rate: 48_000, bpm: "60", countIn: 2, builtIn: true),
        Case(meter: "4/4", rate: 44_100, bpm: "60", builtIn: true),
        Case(meter: "7/8", rate: 48_000, bpm: "60"),
        Case(meter: "7/8", rate: 44_100, bpm: "60", builtIn: true),
        Case(meter: "4/4", rate: 48_000, bpm: "15", subdivide: 4, builtIn: true),
        Case(meter: "4/4", rate: 44_100, bpm: "15", subdivide: 4),
    ]

    /// Each word's onset within a millisecond of its click's exact frame (the
    /// tempo slow enough that no word rings into the next one's span); the
    /// beats a count-in leaves unspoken, silent.
    @Test(arguments: cases)
    func theWordsOnsetsInARenderAreOnTheirClicksFrames(_ test: Case) throws {
        let directory = TemporaryDirectory()
        let silent = try SpokenCountOracle.silentSound(in: directory)
        let file = directory.file("count.wav")
        var arguments = ["--bpm", test.bpm, "--meter", test.meter, "--rate", "\(test.rate)", "--bars", "2",
                         "--count", test.subdivide > 1 ? "voice-subdivided" : "voice", "--count-in", "\(test.countIn)",
                         "--beat-sound", silent, "--bell-sound", silent, "--output", file]
        if test.subdivide > 1 { arguments += ["--subdivide", "\(test.subdivide)", "--subdivision-sound", silent] }
        if !test.builtIn { arguments += ["--voice", try SpokenCountOracle.espeakWords(in: directory)] }
        let rendered = try run(metronomeBinary(), arguments)
        try #require(rendered.status == 0, "\(rendered.standardError)")

        let rate = try SampleRate(parsing: "\(test.rate)")
        let meter = try Meter(parsing: test.meter)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: test.bpm), meter: meter, rate: rate)
        let beats = Int64(meter.beatsPerBar)
        var spoken: [Int64] = [], unspoken: [Int64] = []
        for click in 0..<(test.countIn + 2) * beats {
            let bar = click / beats - test.countIn, beat = click % beats
            // A count-in's bars before its last: "one — two —".
            if bar < -1 && beat % 2 == 1 { unspoken.append(schedule.frame(ofClick: click)) } else { spoken.append(schedule.frame(ofClick: click)) }
            for index in 1..<Int64(test.subdivide) {
                spoken.append(schedule.frame(ofTick: click * Int64(test.subdivide) + index, ticksPerBeat: Int64(test.subdivide)))
            }
        }
        func json(_ frames: [Int64]) -> String { "[" + frames.map(String.init).joined(separator: ",") + "]" }
        let measured = try run(MidoReading.python, [SpokenCountOracle.path, file, json(spoken), json(unspoken)])
        try #require(measured.status == 0, "\(measured.standardError)")
        let result = try JSONDecoder().decode(SpokenCountOracle.Measured.self, from: Data(measured.standardOutput.utf8))
        #expect(result.rate == Int(test.rate))
        #expect(result.offsets.count == spoken.count)
        let millisecond = Int(test.rate / 1_000)
        let offsets = result.offsets.map { $0 ?? .max }
        // The first word, due at frame 0, starts cut (what comes before its onset would fall before the file):
        // its onset measures late, by less than two milliseconds.
        #expect(offsets.dropFirst().allSatisfy { abs($0) <= millisecond }, "onsets less their frames: \(offsets)")
        #expect((0...2 * millisecond).contains(offsets.first ?? .max), "the first word: \(offsets)")
        #expect(result.unspoken.allSatisfy { $0 == 0 }, "\(result.unspoken)")
        print("spoken count, \(test.testDescription): \(spoken.count) words, onsets \(offsets.dropFirst().min() ?? 0) to \(offsets.dropFirst().max() ?? 0) frames from their clicks, the first cut one \(offsets.first ?? 0)")
    }

    /// A MIDI export carries the count: a lyric on each spoken click's tick, the words in order.
    @Test func aMIDIFileCarriesTheCountAsLyricsOnTheClicks() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("count.mid")
        let rendered = try run(metronomeBinary(), ["--bpm", "100", "--meter", "3/4", "--subdivide", "2", "--count", "voice-subdivided",
                                                   "--count-in", "2", "--bars", "1", "--output", file])
        try #require(rendered.status == 0, "\(rendered.standardError)")
        let midi = try MidoReading.read(file)
        // The first count-in bar at half speed, "one — two", nothing between; then whole bars.
        let bar = ["one", "and", "two", "and", "three", "and"]
        #expect(midi.lyrics.map(\.text) == ["one", "two"] + bar + bar, "\(midi.lyrics.map(\.text))")
        // Each lyric on a note's time.
        let noteTimes = Set(midi.notes.map { ($0.time * 1e6).rounded() })
        #expect(midi.lyrics.allSatisfy { noteTimes.contains(($0.time * 1e6).rounded()) })
    }

    @Test func aVoiceFolderMissingAWordOrHoldingANonSoundIsOneLineAndExit66() throws {
        let directory = TemporaryDirectory()
        let folder = try SpokenCountOracle.espeakWords(in: directory)
        let output = directory.file("out.wav")
        let common = ["--bars", "1", "--count", "voice", "--output", output]
        try FileManager.default.removeItem(atPath: "\(folder)/7.wav")
        let missing = try run(metronomeBinary(), common + ["--voice", folder])
        #expect(missing.status == 66)
        #expect(missing.standardError == "metronome: sound file '\(folder)/7.wav' does not exist\n")
        try "not a sound\n".write(toFile: "\(folder)/7.wav", atomically: true, encoding: .utf8)
        let malformed = try run(metronomeBinary(), common + ["--voice", folder])
        #expect(malformed.status == 66)
        #expect(malformed.standardError.hasPrefix("metronome: sound file '\(folder)/7.wav' is not audio"))
        #expect(malformed.standardError.split(separator: "\n").count == 1, "\(malformed.standardError)")
        let nowhere = try run(metronomeBinary(), common + ["--voice", directory.file("nowhere")])
        #expect(nowhere.status == 66)
        #expect(nowhere.standardError == "metronome: voice folder '\(directory.file("nowhere"))' does not exist\n")
        #expect(!FileManager.default.fileExists(atPath: output), "no partial file")
    }

    @Test func theCountsOptionsAreRefusedWhereTheyCannotApply() throws {
        let alone = try run(metronomeBinary(), ["--voice", "/tmp", "--bars", "1", "--output", "/tmp/never.wav"])
        #expect(alone.status == 64)
        #expect(alone.standardError == "metronome: --voice is the spoken count's: add --count voice\n")
        let linked = try run(metronomeBinary(), ["--count", "voice", "--link"])
        #expect(linked.status == 64)
        #expect(linked.standardError.hasPrefix("metronome: --count speaks each word ahead of its beat; --link places"))
        let bad = try run(metronomeBinary(), ["--count", "shout"])
        #expect(bad.status == 64)
        #expect(bad.standardError.split(separator: "\n").first?.contains("shout") == true, "\(bad.standardError)")
    }
}
