import Foundation
import Testing
import MetronomeTestSupport

/// `--tempo-map FILE.mid`: files written by Python's mido, played to the
/// frame that Python's `Fraction` puts each beat on.
@Suite(.serialized) struct MIDITempoMapTests {
    let directory = TemporaryDirectory()

    /// A DAW-like song at 480 ticks a quarter: 200 bars of 3/4 at 612245 µs a quarter
    /// (98.0000653 quarter notes a minute: a tempo in thousandths would be 0.2 ms off by its end),
    /// 7/8 at 500000, 5/4 at 733333 changing to 612245 in the middle of a
    /// beat, with markers, its track ending mid-bar. Each event: tick, what.
    static let verse = 200 * 3 * 480, bridge = verse + 2 * 7 * 240
    static let song: [(tick: Int, statement: String)] = [
        (0, "MetaMessage('time_signature', numerator=3, denominator=4)"),
        (0, "MetaMessage('set_tempo', tempo=612245)"),
        (0, "MetaMessage('marker', text='intro')"),
        (0, "Message('note_on', channel=9, note=36, velocity=100)"),
        (240, "Message('note_off', channel=9, note=36)"),
        (verse, "MetaMessage('time_signature', numerator=7, denominator=8)"),
        (verse, "MetaMessage('set_tempo', tempo=500000)"),
        (verse, "MetaMessage('marker', text='verse')"),
        (bridge, "MetaMessage('time_signature', numerator=5, denominator=4)"),
        (bridge, "MetaMessage('set_tempo', tempo=733333)"),
        (bridge, "MetaMessage('marker', text='bridge')"),
        (bridge + 2 * 480 + 240, "MetaMessage('set_tempo', tempo=612245)"),
        (bridge + 2 * 2400 + 3 * 480, "MetaMessage('end_of_track')"),
    ]

    /// Writes `events` with mido (delta times from the absolute ticks).
    private func write(_ events: [(tick: Int, statement: String)], name: String, ticksPerQuarter: Int = 480) throws -> String {
        let path = directory.file(name)
        var tick = 0, lines: [String] = []
        for (at, statement) in events {
            lines.append("track.append(\(statement.dropLast()), time=\(at - tick)))")
            tick = at
        }
        try MidoReading.write(path, ticksPerQuarter: ticksPerQuarter, track: lines.joined(separator: "\n"))
        return path
    }

    /// Python's `Fraction`: each beat's tick and exact time in seconds (every
    /// tempo before it, tick by tick), and whether it starts a bar, from the file mido reads.
    static let oracle = """
        import json, sys, mido
        from fractions import Fraction
        f = mido.MidiFile(sys.argv[1])
        ppq = f.ticks_per_beat
        events = []
        for track in f.tracks:
            t = 0
            for m in track:
                t += m.time
                events.append((t, m))
        end = max(t for t, m in events if m.type == 'end_of_track')
        tempos = sorted((t, m.tempo) for t, m in events if m.type == 'set_tempo')
        meters = sorted((t, m.numerator, m.denominator) for t, m in events if m.type == 'time_signature')
        def seconds(tick):
            total, at, tempo = Fraction(0), 0, 500000
            for t, u in tempos:
                if t > tick: break
                total += Fraction((t - at) * tempo, ppq * 10**6); at, tempo = t, u
            return total + Fraction((tick - at) * tempo, ppq * 10**6)
        beats, tick, n, d, beat_in_bar = [], Fraction(0), 4, 4, 0
        while tick < end:
            for t, num, den in meters:
                if t == tick: n, d, beat_in_bar = num, den, 0
            s = seconds(tick)
            beats.append([s.numerator, s.denominator, beat_in_bar == 0])
            tick += Fraction(4 * ppq, d); beat_in_bar = (beat_in_bar + 1) % n
        json.dump(beats, sys.stdout)
        """

    private func expectedBeats(_ path: String) throws -> [(seconds: Fraction, bell: Bool)] {
        let result = try run(MidoReading.python, ["-c", Self.oracle, path])
        try #require(result.status == 0, "\(result.standardError)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [[Any]]
        return rows.map { (Fraction(Int128(($0[0] as! NSNumber).int64Value), Int128(($0[1] as! NSNumber).int64Value)), $0[2] as! Bool) }
    }

    /// The clicks of a render of `map` as its trace has them: frame and whether a bell.
    private func clicks(_ map: String, rate: Int, _ extra: [String] = []) throws -> [(frame: Int64, bell: Bool)] {
        let trace = directory.file("trace.jsonl")
        let result = try run(metronomeBinary(), ["--tempo-map", map, "--rate", "\(rate)", "--output", directory.file("out.wav"),
                                                 "--trace", trace] + extra)
        try #require(result.status == 0, "\(result.standardError)")
        return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            // The beats: not the clicks between them.
            guard object["type"] as? String == "click", object["sound"] as? String != "sub" else { return nil }
            return ((object["frame"] as! NSNumber).int64Value, object["sound"] as? String == "bell")
        }
    }

    @Test(arguments: [44_100, 48_000, 96_000])
    func everyBeatOfAMidoFileIsOnTheExactFrameOfItsTicks(rate: Int) throws {
        // Named without .mid: the file is known by its contents.
        let path = try write(Self.song, name: "song.map")
        let expected = try expectedBeats(path)
        let played = try clicks(path, rate: rate)
        #expect(played.count == expected.count && expected.count == 600 + 14 + 13)
        for (click, beat) in zip(played, expected) {
            #expect(click.frame == (beat.seconds * Int128(rate)).nearestFrame, "\(click.frame)")
            #expect(click.bell == beat.bell)
        }
    }

    /// 997 ticks a quarter (a prime) and tempos changing inside beats: beat
    /// lengths whose fractions of frames are too fine for one grid, each beat placed on its own.
    @Test(arguments: [44_100, 48_000])
    func tempoChangesInsideBeatsAtAnOddResolutionStayExact(rate: Int) throws {
        let events: [(tick: Int, statement: String)] = [
            (0, "MetaMessage('time_signature', numerator=7, denominator=8)"),
            (0, "MetaMessage('set_tempo', tempo=612245)"),
            (1, "MetaMessage('set_tempo', tempo=498761)"),
            (997 * 3 + 5, "MetaMessage('set_tempo', tempo=733331)"),
            (997 * 7 + 499, "MetaMessage('set_tempo', tempo=16777215)"),
            (997 * 9 + 3, "MetaMessage('set_tempo', tempo=250001)"),
            (997 * 20, "MetaMessage('end_of_track')"),
        ]
        let path = try write(events, name: "odd.mid", ticksPerQuarter: 997)
        let expected = try expectedBeats(path)
        let beats = try clicks(path, rate: rate, ["--subdivide", "3"])
        #expect(beats.count == expected.count && expected.count == 40)
        for (click, beat) in zip(beats, expected) {
            #expect(click.frame == (beat.seconds * Int128(rate)).nearestFrame)
            #expect(click.bell == beat.bell)
        }
    }

    /// A file whose tracks end inside a bar (DAW exports often do) plays that bar's beats,
    /// then whole bars of the time signature in force at the last tempo: not bars as short as the cut one.
    @Test(arguments: [(6, [0, 4, 6, 10]), (5, [0, 4, 5, 9])])
    func afterAFileEndingInsideABarTheMeterInForceGoesOn(endBeat: Int, bells: [Int]) throws {
        let events: [(tick: Int, statement: String)] = [
            (0, "MetaMessage('time_signature', numerator=4, denominator=4)"),
            (0, "MetaMessage('set_tempo', tempo=500000)"),
            (endBeat * 480, "MetaMessage('end_of_track')"),
        ]
        let path = try write(events, name: "cut.mid")
        // The file alone: its beats to its end, a bell on each bar's first (the cut bar's too).
        let file = try clicks(path, rate: 48_000)
        #expect(file.map(\.frame) == evenFrames(endBeat, every: 24_000))
        #expect(file.map(\.bell) == (0..<endBeat).map { $0 % 4 == 0 })
        // Four bars: the whole one, the cut one, then two of 4/4 from the file's end, each beat at 120.
        let played = try clicks(path, rate: 48_000, ["--bars", "4"])
        #expect(played.count == endBeat + 8)
        #expect(played.map(\.frame) == evenFrames(endBeat + 8, every: 24_000))
        #expect(played.enumerated().filter(\.element.bell).map(\.offset) == bells)
    }

    @Test func aMarkerIsALabelToStartAt() throws {
        let path = try write(Self.song, name: "song.mid")
        let expected = try expectedBeats(path)
        let fromVerse = try clicks(path, rate: 48_000, ["--start-at", "verse"])
        let verse = expected[600...]
        #expect(fromVerse.count == verse.count)
        for (click, beat) in zip(fromVerse, verse) {
            #expect(click.frame == ((beat.seconds + Fraction(-verse.first!.seconds.numerator, verse.first!.seconds.denominator)) * 48_000).nearestFrame)
        }
        let missing = try run(metronomeBinary(), ["--tempo-map", path, "--start-at", "chorus", "--output", directory.file("x.wav")])
        #expect(missing.status == 64 && missing.standardError.contains("intro, verse, bridge"), "\(missing.standardError)")
    }

    /// Our own export read back as a map: the same clicks as the map it came from.
    @Test func anExportedFilePlaysAsTheMapItCameFrom() throws {
        let map = directory.file("odd.txt")
        try oddMap.filter { if case .ramp = $0.tempo { false } else { true } }.map(\.text).joined(separator: "\n")
            .write(toFile: map, atomically: true, encoding: .utf8)
        let exported = directory.file("odd.mid")
        let result = try run(metronomeBinary(), ["--tempo-map", map, "--output", exported])
        try #require(result.status == 0, "\(result.standardError)")
        let original = try clicks(map, rate: 48_000), again = try clicks(exported, rate: 48_000)
        // Patterns are not tempo: the exported map plays every beat, each within a millisecond of the original's.
        let lines = oddMap.filter { if case .ramp = $0.tempo { false } else { true } }.map { var line = $0; line.pattern = nil; return line }
        let every = try exactClicks(lines, rate: 48_000)
        #expect(again.count == every.count && original.count <= every.count)
        for (click, beat) in zip(again, every) { #expect(abs(click.frame - beat.exact.nearestFrame) <= 48) }
    }

    private static let header: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]

    private static func track(_ body: [UInt8]) -> [UInt8] {
        Array("MTrk".utf8) + [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    @Test(arguments: [
        (Array(header.prefix(11)), "byte 10: the file ends inside the number of tracks"),
        (header + Array("MTrk".utf8) + [0, 0, 0, 40, 0, 0xFF, 0x51], "byte 14: the chunk here says it is 40 bytes long"),
        (header + track([0, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]), "byte 29: the track has no End of Track"),
        (header + track([0, 0x40, 0x00, 0, 0xFF, 0x2F, 0]), "byte 23: a data byte (0x40) where an event's status belongs"),
        (header + track([0, 0xFF, 0x51, 0x03, 0, 0, 0, 0, 0xFF, 0x2F, 0]), "byte 23: a tempo of 0 microseconds"),
        (header + track([0, 0xFF, 0x51, 0x05, 0, 0, 0, 0, 0, 0, 0xFF, 0x2F, 0]), "byte 23: a tempo event of 5 bytes"),
        (header + track([0x81, 0x81, 0x81, 0x81, 0x01, 0xFF, 0x2F, 0]), "byte 22: a delta time is longer than four bytes"),
        (header + track([0, 0xF3, 0, 0xFF, 0x2F, 0]), "byte 23: status byte 0xf3 cannot be in a MIDI file"),
        (Array(header.prefix(12)) + [0xE7, 0x28] + track([0, 0xFF, 0x2F, 0]), "byte 12: the time division is SMPTE frames"),
        (Array(header.prefix(8)) + [0, 2] + Array(header.suffix(4)) + track([0, 0xFF, 0x2F, 0]), "byte 8: format 2"),
        (header + track([0, 0xFF, 0x2F, 0]), "the file's tracks end at tick 0"),
        (header + track([0x83, 0x60, 0xFF, 0x2F, 0, 0]), "byte 24: End of Track 1 bytes before the track's end"),
        (header + track([0, 0xFF, 0x51, 0x03, 0, 0x75, 0x2F, 0x83, 0x60, 0xFF, 0x2F, 0]), "the beat at tick 0 is faster than 1000 beats a minute"),
    ] as [([UInt8], String)])
    func aMalformedOrTruncatedFileIsOneLineWithItsByteAndExit65(bytes: [UInt8], message: String) throws {
        let path = directory.file("bad.mid")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let output = directory.file("x.wav")
        let result = try run(metronomeBinary(), ["--tempo-map", path, "--output", output])
        #expect(result.status == 65)
        let line = result.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("metronome: \(path): ") && line.contains(message), "\(line)")
        #expect(!line.contains("\n"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A .mid file cut inside its header is a MIDI file's error; a text map called .mid is still a map.
    @Test func aFileCalledMidIsReadAsMIDIOnlyWhenItIsNoText() throws {
        let cut = directory.file("cut.mid"), text = directory.file("text.mid")
        try Data("MTh".utf8).write(to: URL(fileURLWithPath: cut))
        try "2 3/4 90\n".write(toFile: text, atomically: true, encoding: .utf8)
        let short = try run(metronomeBinary(), ["--tempo-map", cut, "--output", directory.file("x.wav")])
        #expect(short.status == 65 && short.standardError.contains("cut.mid: byte 3: the file ends inside its MThd header"), "\(short.standardError)")
        #expect(try clicks(text, rate: 48_000).count == 6)
    }
}
