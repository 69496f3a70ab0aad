import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
import MetronomeTestSupport

/// A tempo-map entry as the tests write it, with where its clicks belong.
struct MapLine {
    enum Tempo { case constant(String), ramp(String, String), list([String]) }
    var label: String?
    var bars: Int
    var beats = 4, noteValue = 4
    var tempo: Tempo
    var pattern: String?
    var volume: String?

    var text: String {
        var words: [String] = []
        if let label { words.append(label + ":") }
        words.append("\(bars)")
        if beats != 4 || noteValue != 4 { words.append("\(beats)/\(noteValue)") }
        switch tempo {
        case .constant(let q): words.append(q)
        case .ramp(let a, let b): words.append("\(a)-\(b)")
        case .list(let qs): words.append(qs.joined(separator: ","))
        }
        if let pattern { words.append(pattern) }
        if let volume { words.append(volume) }
        return words.joined(separator: "  ")
    }
}

/// Where each click of `lines` belongs, played or silent: an exact fraction
/// while no ramp came before, then the closed form of the ramps added on.
func exactClicks(_ lines: [MapLine], rate: Int128) throws -> [(exact: Fraction, ramps: Double, bell: Bool, played: Bool, volume: Double)] {
    var clicks: [(Fraction, Double, Bool, Bool, Double)] = []
    var start = Fraction(0), ramps = 0.0
    for line in lines {
        let n = line.bars * line.beats
        let volume = Double(line.volume ?? "1")!
        func sound(_ beat: Int) -> (bell: Bool, played: Bool) {
            guard let pattern = line.pattern else { return (beat % line.beats == 0, true) }
            let character = Array(pattern)[beat % line.beats]
            return (character == "X", character != ".")
        }
        switch line.tempo {
        case .constant(let q):
            let beat = try beatFrames(quarterNotes: q, noteValue: Int128(line.noteValue), rate: rate)
            for j in 0..<n { clicks.append((start + beat * Int128(j), ramps, sound(j).bell, sound(j).played, volume)) }
            start = start + beat * Int128(n)
        case .list(let qs):
            for (j, q) in qs.enumerated() {
                clicks.append((start, ramps, sound(j).bell, sound(j).played, volume))
                start = start + (try beatFrames(quarterNotes: q, noteValue: Int128(line.noteValue), rate: rate))
            }
        case .ramp(let a, let b):
            let t1 = Double(a)!, t2 = Double(b)!, beats = Double(n), d = Double(line.noteValue), r = Double(rate)
            for j in 0..<n {
                let offset = 240 / d * beats / (t2 - t1) * log(1 + (t2 - t1) * Double(j) / (beats * t1)) * r
                clicks.append((start, ramps + offset, sound(j).bell, sound(j).played, volume))
            }
            ramps += 240 / d * beats / (t2 - t1) * log(t2 / t1) * r
        }
    }
    return clicks.filter(\.3)
}

/// klick's own example map, and one with odd meters, decimals, a per-beat list and ramps in eighths.
let songMap: [MapLine] = [
    MapLine(label: "intro", bars: 8, tempo: .constant("120")),
    MapLine(label: "verse1", bars: 12, tempo: .constant("120"), pattern: "X.x."),
    MapLine(bars: 4, tempo: .ramp("120", "140"), pattern: "X.x."),
    MapLine(label: "chorus1", bars: 16, tempo: .constant("140")),
    MapLine(label: "bridge", bars: 8, beats: 3, tempo: .constant("140"), volume: "0.5"),
    MapLine(bars: 8, beats: 3, tempo: .constant("140")),
    MapLine(label: "verse2", bars: 12, tempo: .constant("120")),
    MapLine(label: "outro", bars: 6, tempo: .constant("140")),
    MapLine(bars: 2, tempo: .ramp("140", "80")),
]

let oddMap: [MapLine] = [
    MapLine(bars: 2, beats: 5, noteValue: 8, tempo: .constant("97.3")),
    MapLine(label: "odd", bars: 1, beats: 7, noteValue: 16, tempo: .constant("133.333"), pattern: "X..x..x"),
    MapLine(bars: 3, beats: 3, noteValue: 2, tempo: .constant("61.7")),
    MapLine(bars: 1, beats: 2, tempo: .list(["100", "110.5"])),
    MapLine(bars: 1, beats: 4, tempo: .list(["100", "110.5", "120", "130.25"]), pattern: "XxX."),
    MapLine(bars: 2, beats: 6, noteValue: 8, tempo: .ramp("90", "97.5")),
    MapLine(bars: 1, beats: 1, noteValue: 1, tempo: .constant("45.123"), volume: "0.25"),
]

@Suite(.serialized) struct TempoMapFileTests {
    let directory = TemporaryDirectory()
    static let klick = "/usr/bin/klick"
    static let klickRequired = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"

    private func writeMap(_ lines: [MapLine], name: String) throws -> String {
        let path = directory.file(name)
        try (["# written by the tests", ""] + lines.map(\.text)).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Impulse sounds for both programs: klick's emphasis and normal sounds are our bell and beat.
    private func impulses() throws -> (bell: String, beat: String) {
        let rate = try #require(SampleRate(44_100))
        let bell = directory.file("bell.wav"), beat = directory.file("beat.wav")
        try Sound(samples: [0.5], rate: rate).write(to: bell, format: OutputFormat(path: bell, sampleFormat: .float))
        try Sound(samples: [0.25], rate: rate).write(to: beat, format: OutputFormat(path: beat, sampleFormat: .float))
        return (bell, beat)
    }

    private func render(_ map: String, _ extra: [String] = []) throws -> [(frame: Int64, value: Float)] {
        let (bell, beat) = try impulses()
        let output = directory.file("ours.wav")
        let result = try run(metronomeBinary(), ["--tempo-map", map, "--rate", "44100", "--output", output,
                                                 "--bell-sound", bell, "--beat-sound", beat] + extra)
        #expect(result.status == 0, "\(result.standardError)")
        return onsets(try readSoundFile(output).samples)
    }

    @Test(arguments: [("song", songMap), ("odd", oddMap)])
    private func aMapRendersEveryClickOnItsExactFrameAndAgreesWithKlick(name: String, lines: [MapLine]) throws {
        let map = try writeMap(lines, name: "\(name).txt")
        let ours = try render(map)
        let expected = try exactClicks(lines, rate: 44_100)
        #expect(ours.count == expected.count)
        for (click, want) in zip(ours, expected) {
            if want.ramps == 0 {
                #expect(click.frame == want.exact.nearestFrame)
            } else {
                let position = Double(want.exact.numerator) / Double(want.exact.denominator) + want.ramps
                #expect(abs(Double(click.frame) - position) <= 0.5 + 1e-6, "\(click.frame) for \(position)")
            }
            #expect(abs(Double(click.value) - (want.bell ? 0.5 : 0.25) * want.volume) < 1e-3)
        }

        guard FileManager.default.isExecutableFile(atPath: Self.klick) else {
            #expect(!Self.klickRequired, "klick is installed by scripts/setup --test")
            return
        }
        let (bell, beat) = try impulses()
        let reference = directory.file("klick.wav")
        let klickRun = try run(Self.klick, ["-W", reference, "-r", "44100", "-S", "\(bell),\(beat)", "-f", map])
        #expect(klickRun.status == 0, "\(klickRun.standardError)")
        let theirs = onsets(try readSoundFile(reference).samples)
        // The same clicks and accents; klick floors where the exact grid rounds, so it may be a frame early.
        #expect(theirs.count == ours.count)
        for (mine, reference) in zip(ours, theirs) {
            #expect(mine.frame - reference.frame == 0 || mine.frame - reference.frame == 1, "\(mine.frame) vs klick \(reference.frame)")
            #expect(abs(mine.value - reference.value) < 1e-3)
        }
    }

    @Test func startAtALabelRendersFromThatEntry() throws {
        let map = try writeMap(oddMap, name: "odd.txt")
        let ours = try render(map, ["--start-at", "odd"])
        let expected = try exactClicks(Array(oddMap[1...]), rate: 44_100)
        #expect(Array(ours.map(\.frame).prefix(3)) == expected.prefix(3).map(\.exact.nearestFrame))
        #expect(ours.count == expected.count)
    }

    @Test func theTraceNamesTheTempoOfEveryEntryAtItsFirstClick() throws {
        let map = try writeMap([MapLine(bars: 1, tempo: .constant("120")), MapLine(bars: 1, beats: 6, noteValue: 8, tempo: .constant("90"))],
                               name: "two.txt")
        let trace = directory.file("trace.jsonl")
        _ = try render(map, ["--trace", trace])
        let tempos = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"tempo\"") }
        // 90 quarter notes a minute in 6/8 is 180 eighths: the trace counts the meter's beats, as --bpm does.
        #expect(tempos == [#"{"type":"tempo","bpm":"120","frame":0}"#, #"{"type":"tempo","bpm":"180","frame":88200}"#])
    }

    @Test(arguments: [
        ("4 120\n2 4/3 100\n", "map.txt:2:3: meter"),
        ("4 120 Xx.\n", "map.txt:1:7: pattern"),
        ("4 0\n", "map.txt:1:3: tempo '0' is zero"),
        ("# intro\n  4 -90\n", "map.txt:2:5: tempo '-90' is negative"),
        ("4 120-0\n", "map.txt:1:7: tempo '0' is zero"),
        ("1 3/4 100,110\n", "map.txt:1:7: 2 tempos for 3 beats"),
        ("4 120\nverse 8 120\n", "map.txt:2:1: 'verse' is not a number of bars"),
        ("4 120 X.x. 0.5 extra\n", "map.txt:1:16: unexpected 'extra'"),
        ("0 120\n", "map.txt:1:1: bars must be from 1"),
        ("a: 1 120\na: 2 90\n", "map.txt:2:1: label 'a' is used twice"),
        ("4\n", "map.txt:1:2: a tempo is missing"),
        ("# only comments\n\n", "map.txt:3:1: the tempo map has no entries"),
        ("4 120\n\u{1}\u{2}binary", "map.txt:2:1: not a text file"),
    ])
    func aMalformedMapIsRejectedWithItsLineAndColumnAndExit65(text: String, message: String) throws {
        let path = directory.file("map.txt")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run(metronomeBinary(), ["--tempo-map", path, "--output", directory.file("x.wav")])
        #expect(result.status == 65)
        let line = result.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("metronome: " + path.dropLast("map.txt".count) + message), "\(line)")
        #expect(!line.contains("\n"))
        #expect(!directory.contents().contains("x.wav"))
    }

    @Test func aMissingMapIsExit66AndOptionsThatClashAreExit64() throws {
        let missing = try run(metronomeBinary(), ["--tempo-map", directory.file("none.txt"), "--bars", "1", "--output", directory.file("x.wav")])
        #expect(missing.status == 66 && missing.standardError.contains("cannot read tempo map"))
        let map = try writeMap([MapLine(label: "a", bars: 1, tempo: .constant("120"))], name: "a.txt")
        for arguments in [["--bpm", "90"], ["--start-at", "b"], ["--loop", "--output", directory.file("x.wav")]] {
            let result = try run(metronomeBinary(), ["--tempo-map", map] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
        for arguments in [["--step", "5/4"], ["--step", "5/4", "--until", "100", "--bpm", "120"], ["--step", "x", "--until", "130"],
                          ["--until", "130"], ["--start-at", "a"]] {
            let result = try run(metronomeBinary(), arguments + ["--output", directory.file("x.wav"), "--bars", "1"])
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
        }
    }

    @Test func theSpeedTrainerRendersFromTheCommandLine() throws {
        let (bell, beat) = try impulses()
        let output = directory.file("trainer.wav")
        let result = try run(metronomeBinary(), ["--bpm", "100", "--step", "-7.5/1", "--until", "80", "--meter", "2/4", "--bars", "5",
                                                 "--rate", "44100", "--output", output, "--bell-sound", bell, "--beat-sound", beat])
        #expect(result.status == 0, "\(result.standardError)")
        var expected: [Int64] = []
        var start = Fraction(0)
        for bpm in ["100", "92.5", "85", "80", "80"] {
            let beat = Fraction(60 * 44_100 * 1000, Int128(try Tempo(parsing: bpm).millibeatsPerMinute))
            expected += [start.nearestFrame, (start + beat).nearestFrame]
            start = start + beat * 2
        }
        #expect(onsets(try readSoundFile(output).samples).map(\.frame) == expected)
    }
}
