import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// `--midi-notes` on a real JACK server: the metronome's `midi_out` and its
/// audio port both into one Python client (`TransportProbe`'s midi mode),
/// which notes each MIDI event and each nonzero sample at its JACK frame time.
@Suite struct JackMIDINotesServerTests {
    /// Each click is a note on channel 10 at the very frame its sound starts on
    /// the audio port: GM 34 (Metronome Bell) on the bar's first beat, 33
    /// (Metronome Click) on the others, released 20 ms (960 frames) later; the
    /// notes on the exact grid from the first.
    @Test(.enabled(if: JackTransportTests.ready || JackTransportTests.required))
    func eachClickIsANoteOnAtTheFrameItsSoundStarts() throws {
        try #require(JackTransportTests.ready, "\(JackTransportTests.needs)")
        let loopback = try JackLoopback()
        let file = loopback.home.file("notes.jsonl")
        let recorder = try TransportProbe(on: loopback, ["midi", "-", "6", file, "audio"], name: "recorder")
        try recorder.wait(forLine: "recording")
        let (beat, bell) = try writeImpulseSoundFiles(in: loopback.home)
        let metronome = try loopback.launch(metronomeBinary(), ["--jack", "--connect", "probe_midi:audio", "--midi-notes", "--midi-connect", "probe_midi:in",
                                                                "--no-pendulum", "--quiet", "--bpm", "150", "--meter", "3/4", "--duration", "4",
                                                                "--beat-sound", beat, "--bell-sound", bell],
                                            log: loopback.home.file("metronome.log"))
        #expect(recorder.finish() == 0, "\(recorder.log)")
        metronome.waitUntilExit()
        #expect(metronome.terminationStatus == 0)
        #expect(((try? String(contentsOfFile: loopback.home.file("metronome.log"), encoding: .utf8)) ?? "") == "")

        let rows = try TransportProbe.rows(file)
        func frame(_ row: [String: Any]) -> Int64 { (row["frameTime"] as? NSNumber)?.int64Value ?? -1 }
        let sounds = rows.filter { $0["sample"] != nil }.map { (frame: frame($0), bell: (($0["sample"] as? NSNumber)?.doubleValue ?? 0) < 0) }
        let messages = rows.compactMap { row in (row["bytes"] as? [Int]).map { (frame: frame(row), bytes: $0) } }
        let ons = messages.filter { $0.bytes.count == 3 && $0.bytes[0] == 0x99 }
        let offs = messages.filter { $0.bytes.count == 3 && $0.bytes[0] == 0x89 }
        try #require(sounds.count >= 8, "\(sounds.count) clicks heard: \(recorder.log)")
        // One note-on a click, on the frame its sound starts; the bell's key on the bells.
        #expect(ons.map(\.frame) == sounds.map(\.frame), "notes \(ons.map(\.frame)), sounds \(sounds.map(\.frame))")
        for (note, sound) in zip(ons, sounds) {
            #expect(note.bytes[1] == (sound.bell ? 34 : 33) && note.bytes[2] > 0, "\(note) for \(sound)")
        }
        // On the exact grid (150 bpm: 19200 frames a beat), from the first.
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "150"), meter: try Meter(parsing: "3/4"), rate: .standard)
        #expect(ons.map { $0.frame - ons[0].frame } == (0..<Int64(ons.count)).map { schedule.frame(ofClick: $0) })
        #expect(sounds.first?.bell == true, "the run's first click is bar 1's bell")
        // Each released 960 frames on, the same key (the run ends 2 s before the recording).
        for note in ons {
            #expect(offs.contains { $0.frame == note.frame + 960 && $0.bytes[1] == note.bytes[1] && $0.bytes[2] == 0 }, "no release for \(note): \(offs)")
        }
        #expect(offs.count == ons.count)
    }

    /// A MIDI port to connect to that is not there: one line naming it, and 69, as for `--connect`.
    @Test(.enabled(if: JackTransportTests.ready || JackTransportTests.required))
    func aMIDIPortThatIsNotThereIsOneLineAnd69() throws {
        try #require(JackTransportTests.ready, "\(JackTransportTests.needs)")
        let loopback = try JackLoopback()
        let played = try run(metronomeBinary(), ["--jack", "--no-connect", "--no-pendulum", "--midi-notes", "--midi-connect", "drums:in",
                                                 "--duration", "1"], environment: loopback.environment)
        #expect(played.status == 69)
        #expect(played.standardError == "metronome: there is no JACK port 'drums:in' to connect 'metronome:midi_out' to (jack_lsp lists them)\n")
    }
}
