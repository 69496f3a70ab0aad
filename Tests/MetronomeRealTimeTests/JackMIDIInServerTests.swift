import Foundation
import Testing
import MetronomeTestSupport

/// `--midi-in` on a real JACK server: a Python client (`TransportProbe`'s
/// send mode) sends messages into `metronome:midi_in` at chosen frames, and
/// the recorder notes each click the audio port plays at its frame time.
@Suite struct JackMIDIInServerTests {
    /// Runs the metronome with `arguments` into a recorder of `seconds`, sends
    /// `events` (FRAME:HEX,...) once it plays; returns the frame times the
    /// events went at, the clicks' frame times, and what it printed.
    func play(_ arguments: [String], events: [String], seconds: Int = 6) throws -> (sent: [Int64], clicks: [Int64], printed: String) {
        let loopback = try JackLoopback()
        let file = loopback.home.file("clicks.jsonl")
        let recorder = try TransportProbe(on: loopback, ["midi", "-", String(seconds), file, "audio"], name: "recorder")
        try recorder.wait(forLine: "recording")
        let (beat, bell) = try writeImpulseSoundFiles(in: loopback.home)
        let log = loopback.home.file("metronome.log")
        let metronome = try loopback.launch(metronomeBinary(), ["--jack", "--connect", "probe_midi:audio", "--no-pendulum",
                                                                "--beat-sound", beat, "--bell-sound", bell] + arguments, log: log)
        try loopback.waitForPort("metronome:midi_in")
        let sender = try TransportProbe(on: loopback, ["send", "metronome:midi_in"] + events, name: "sender")
        try sender.wait(forLine: "ready")
        sender.send("go")
        try sender.wait(for: "sent", seconds: 30) { $0.filter { $0.hasPrefix("sent ") }.count == events.count }
        #expect(recorder.finish() == 0, "\(recorder.log)")
        metronome.interrupt()
        metronome.waitUntilExit()
        let sent = sender.lines.compactMap { $0.hasPrefix("sent ") ? Int64($0.dropFirst(5)) : nil }
        let clicks = try TransportProbe.rows(file).compactMap { row in
            row["sample"] != nil ? (row["frameTime"] as? NSNumber)?.int64Value : nil
        }
        return (sent, clicks, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// Four taps on a pad (the standard map's note 36) 20000 frames apart:
    /// 144 bpm, the tempo of their frames exactly, and the next click one
    /// interval after the last tap, every later one on that grid; the taps'
    /// frames are those they came in at, not when the loop read them.
    @Test(.enabled(if: JackTransportTests.ready || JackTransportTests.required))
    func tapsOnAPadSetTheTempoOfTheirFrames() throws {
        try #require(JackTransportTests.ready, "\(JackTransportTests.needs)")
        let taps = (0..<4).flatMap { ["\($0 * 20_000):99,24,64", "\($0 * 20_000 + 2_000):89,24,0"] }
        // The sender writes each tap in the cycle it falls in; one it missed (a loaded machine) went later: that take is done again.
        var take = try play(["--midi-in", "--quiet", "--bpm", "60"], events: taps)
        for _ in 0..<2 where take.sent.count == 8 && take.sent[6] - take.sent[0] != 60_000 {
            take = try play(["--midi-in", "--quiet", "--bpm", "60"], events: taps)
        }
        let (sent, clicks, printed) = take
        try #require(sent.count == 8, "\(sent)")
        let lastTap = sent[6]
        #expect(sent[0] + 60_000 == lastTap)
        let after = clicks.filter { $0 > lastTap }
        try #require(after.count >= 5, "clicks \(clicks), last tap at \(lastTap): \(printed)")
        #expect(after.map { $0 - lastTap } == evenFrames(after.count, from: 20_000, every: 20_000), "clicks \(clicks), taps \(sent)")
        #expect(printed.isEmpty, "\(printed)")
    }

    /// A sustain pedal (CC 64) stops the clicks as a foot switch; a
    /// sequencer's Start plays them again, a new bar at once; `--midi-learn`
    /// prints each message as the map line that binds it.
    @Test(.enabled(if: JackTransportTests.ready || JackTransportTests.required))
    func aPedalStopsASequencersStartResumesAndLearningPrintsTheLines() throws {
        try #require(JackTransportTests.ready, "\(JackTransportTests.needs)")
        let events = ["48000:b0,40,7f", "50000:b0,40,00", "144000:fa"]
        let (sent, clicks, printed) = try play(["--bpm", "120", "--midi-learn"], events: events)
        try #require(sent.count == 3, "\(sent)")
        let (pedal, start) = (sent[0], sent[2])
        // Within the frames the loop takes to read it (a wake, 10 ms, and a cycle): nothing after the pedal's beat.
        let beforeStart = clicks.filter { $0 < start }
        #expect(beforeStart.allSatisfy { $0 <= pedal + 24_000 }, "clicks \(clicks), pedal \(pedal), start \(start)")
        #expect(clicks.contains { $0 > start && $0 < start + 24_000 }, "clicks \(clicks), start \(start)")
        let learned = printed.split(separator: "\n").filter { $0.hasPrefix("cc ") || $0.hasPrefix("#") }
        #expect(learned == ["cc 64 channel 1 ACTION    # value 127", "cc 64 channel 1 ACTION    # value 0", "# Start: starts the metronome"],
                "\(printed)")
    }

    /// A controller swept over its whole travel (`cc 7 tempo 40-240`, each of
    /// the 128 values 200 frames apart): the tempo follows it to the top of the
    /// range, 240 bpm, 12000 frames a beat from the next beat on.
    @Test(.enabled(if: JackTransportTests.ready || JackTransportTests.required))
    func aControllerSweepTakesTheTempoOverItsRange() throws {
        try #require(JackTransportTests.ready, "\(JackTransportTests.needs)")
        let home = TemporaryDirectory()
        let map = home.file("fader.txt")
        try "cc 7 tempo 40-240\n".write(toFile: map, atomically: true, encoding: .utf8)
        let sweep = (0...127).map { "\(24_000 + $0 * 200):b0,07,\(String($0, radix: 16))" }
        let (sent, clicks, printed) = try play(["--midi-map", map, "--quiet", "--bpm", "100"], events: sweep)
        try #require(sent.count == 128, "\(sent.count) sent")
        let after = clicks.filter { $0 > sent[127] }
        try #require(after.count >= 6, "clicks \(clicks): \(printed)")
        let intervals = zip(after, after.dropFirst()).map { $1 - $0 }
        // The first click after the sweep may still be on the grid of a value before the last.
        #expect(intervals.dropFirst().allSatisfy { $0 == 12_000 }, "intervals \(intervals)")
    }

    /// A malformed map is one line with its file, line and column and 65;
    /// one that cannot be read, 66: both before any server is asked for.
    @Test func aBadMapIsOneLineWithItsPlaceBeforeAnyServer() throws {
        let home = TemporaryDirectory()
        let map = home.file("pads.txt")
        try "note 36 tap\ncc 64 stomp\n".write(toFile: map, atomically: true, encoding: .utf8)
        let malformed = try run(metronomeBinary(), ["--jack", "--midi-map", map, "--no-pendulum", "--duration", "1"])
        #expect(malformed.status == 65)
        #expect(malformed.standardError.hasPrefix("metronome: \(map):2:7: 'stomp' is not an action: use tap, start-stop,"), "\(malformed.standardError)")
        #expect(malformed.standardError.filter { $0 == "\n" }.count == 1)
        let missing = try run(metronomeBinary(), ["--jack", "--midi-map", home.file("none.txt"), "--no-pendulum", "--duration", "1"])
        #expect(missing.status == 66)
        #expect(missing.standardError.hasPrefix("metronome: cannot read MIDI map '\(home.file("none.txt"))': "), "\(missing.standardError)")
        let alone = try run(metronomeBinary(), ["--midi-in", "--no-pendulum", "--duration", "1"])
        #expect(alone.status == 64 && alone.standardError == "metronome: --midi-in applies to --jack only\n")
    }
}
