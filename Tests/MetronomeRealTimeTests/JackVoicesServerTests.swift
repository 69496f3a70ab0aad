import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport
import MetronomeAudio
import MetronomeRender

/// `metronome --jack --jack-ports split` on a real server (jackd on the
/// dummy driver, started here): a port a voice, recorded side by side by
/// `Tests/Tools/jack_multi_rec.c`, whose channels share JACK's frame clock.
@Suite struct JackVoicesServerTests {
    /// The bell's port carries the bar starts and nothing else, the beat's
    /// port the other beats and nothing else; together, every click from
    /// the first bar start recorded on, each on its exact frame of the grid.
    @Test(.enabled(if: JackPlaybackServerTests.ready || JackPlaybackServerTests.required))
    func theBellPortHasTheBarStartsAndTheBeatPortTheOtherBeatsOnTheGrid() throws {
        try #require(JackPlaybackServerTests.ready, "\(JackPlaybackServerTests.needs)")
        try takes(3, "a port a voice") { _, last in
            let directory = TemporaryDirectory()
            let (beat, bell) = try writeImpulseSoundFiles(in: directory)
            guard let samples = try recordBellAndBeat(["--bpm", "137", "--meter", "3/4", "--duration", "12", "--beat-sound", beat, "--bell-sound", bell],
                                                      seconds: 6, last: last) else { return false }
            let bells = onsets(stride(from: 0, to: samples.count, by: 2).map { samples[$0] })
            let beats = onsets(stride(from: 1, to: samples.count, by: 2).map { samples[$0] })
            let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), meter: try Meter(parsing: "3/4"), rate: .standard)
            let first = try #require(bells.first, "no bell recorded")
            // The recording starts mid-run, on a bar start the track reached some seconds in: read
            // the onsets against the track's own grid from the bar start that fits them best.
            typealias Heard = [(click: Int64, offset: Int64, bell: Bool)]
            func heard(from bar: Int64) -> (bells: Heard, beats: Heard) {
                let origin = (frame: first.frame - schedule.frame(ofClick: 3 * bar), value: first.value)
                return (clicksHeard(bells, from: origin, on: schedule), clicksHeard(beats.filter { $0.frame > first.frame }, from: origin, on: schedule))
            }
            func distance(from bar: Int64) -> Int64 {
                let (bells, beats) = heard(from: bar)
                return (bells + beats).reduce(Int64(0)) { sum, click in sum + abs(click.offset) }
            }
            let bar = (Int64(0)..<40).min { a, b in distance(from: a) < distance(from: b) } ?? 0
            let (heardBells, heardBeats) = heard(from: bar)
            // 6 s at 137 bpm: 13 or 14 clicks, 4 or 5 of them bar starts.
            #expect(heardBells.count >= 4 && heardBeats.count >= 8, "\(heardBells) \(heardBeats)")
            for click in heardBells {
                #expect(click.offset == 0 && click.bell && schedule.isBell(click: click.click), "\(click)")
            }
            for click in heardBeats {
                #expect(click.offset == 0 && !click.bell && !schedule.isBell(click: click.click), "\(click)")
            }
            // None missing between: the two ports together are the whole grid.
            let lastClick = max(heardBells.last?.click ?? 0, heardBeats.last?.click ?? 0)
            #expect((heardBells + heardBeats).map(\.click).sorted() == Array((3 * bar)...lastClick))
            return true
        }
    }
}

/// `metronome --jack --count voice` on a real server: the words, on the beat's
/// port, recorded beside the bell's (an impulse on each bar's first beat),
/// each word's onset measured apart from the metronome (`count_onsets.py`)
/// within a millisecond of its beat's frame on the grid the bells give.
@Suite struct JackSpokenCountServerTests {
    @Test(.enabled(if: JackPlaybackServerTests.ready || JackPlaybackServerTests.required))
    func theWordsOnsetsAreOnTheirBeatsFramesOnTheServersClock() throws {
        try #require(JackPlaybackServerTests.ready, "\(JackPlaybackServerTests.needs)")
        try takes(3, "the spoken count on JACK") { _, last in
            let directory = TemporaryDirectory()
            let (_, bell) = try writeImpulseSoundFiles(in: directory)
            let silent = try SpokenCountOracle.silentSound(in: directory)
            let voice = try SpokenCountOracle.espeakWords(in: directory)
            guard let samples = try recordBellAndBeat(["--bpm", "60", "--meter", "3/4", "--duration", "16", "--count", "voice", "--voice", voice,
                                                       "--beat-sound", silent, "--bell-sound", bell], seconds: 9, last: last) else { return false }
            let bells = onsets(stride(from: 0, to: samples.count, by: 2).map { samples[$0] }).map(\.frame)
            let words = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
            try #require(bells.count >= 2, "\(bells)")
            #expect(zip(bells, bells.dropFirst()).allSatisfy { $1 - $0 == 3 * 48_000 }, "bars on the grid: \(bells)")
            // Every beat from the first bar start on, save the last (its span may be cut by the recording's end).
            let beats = (0..<Int64(3 * bells.count)).map { bells[0] + $0 * 48_000 }.filter { $0 + 24_000 < Int64(words.count) }
            let wav = directory.file("words.wav")
            try Sound(samples: Array(words.prefix(Int(beats.last! + 24_000))), rate: .standard)
                .write(to: wav, format: OutputFormat(path: wav, sampleFormat: .pcm16))
            let json = "[" + beats.map(String.init).joined(separator: ",") + "]"
            let measured = try run(MidoReading.python, [SpokenCountOracle.path, wav, json, "[]"])
            try #require(measured.status == 0, "\(measured.standardError)")
            let result = try JSONDecoder().decode(SpokenCountOracle.Measured.self, from: Data(measured.standardOutput.utf8))
            let offsets = result.offsets.map { $0 ?? .max }
            #expect(offsets.count >= 5 && offsets.allSatisfy { abs($0) <= 48 }, "onsets less their beats' frames: \(offsets)")
            print("spoken count on JACK: \(offsets.count) words, onsets \(offsets.min() ?? 0) to \(offsets.max() ?? 0) frames from their beats")
            return true
        }
    }
}

/// `metronome --jack --jack-ports split` with `options` on a server of its own
/// (jackd on the dummy driver), its ports `bell` and `beat` recorded for
/// `seconds` side by side by `Tests/Tools/jack_multi_rec.c` (interleaved: the
/// bell's frames even, the beat's odd). Nil where the server had an xrun and
/// this is not the `last` take: the harness's, not the metronome's, taken again.
func recordBellAndBeat(_ options: [String], seconds: Int, last: Bool) throws -> [Float]? {
    let loopback = try JackLoopback()
    let recorder = try JackLoopback.buildTool("jack_multi_rec", into: loopback.home.path, flags: ["-ljack"])
    let errors = loopback.home.file("stderr"), file = loopback.home.file("voices.f32")
    let metronome = try loopback.launch(metronomeBinary(), ["--jack", "--jack-ports", "split", "--no-connect", "--no-pendulum"] + options, log: errors)
    for port in ["bell", "beat", "sub", "poly"] { try loopback.waitForPort("metronome:\(port)") }
    // The recorder connects the ports named to its inputs itself.
    let recording = try loopback.launch(recorder, ["\(seconds)", file, "metronome:bell", "metronome:beat"], log: loopback.home.file("recorder.log"))
    recording.waitUntilExit()
    metronome.waitUntilExit()
    let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    #expect(recording.terminationStatus == 0)
    #expect(metronome.terminationStatus == 0, "\(stderr)")
    if stderr.contains("underrun") && !last { return nil }
    #expect(!stderr.contains("underrun"), "\(stderr)")
    return try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}
