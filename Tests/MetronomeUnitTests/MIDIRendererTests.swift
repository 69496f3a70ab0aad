import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// `--output x.mid`, read back by Python's mido with the file's own tempo
/// events, against the exact times worked out here from the map's numbers.
@Suite(.serialized) struct MIDIRendererTests {
    let directory = TemporaryDirectory()

    private func export(_ arguments: [String], name: String = "out.mid") throws -> MidoReading {
        let output = directory.file(name)
        let result = try run(metronomeBinary(), arguments + ["--output", output])
        try #require(result.status == 0, "\(result.standardError)")
        return try MidoReading.read(output)
    }

    private func writeMap(_ lines: [MapLine], name: String) throws -> String {
        let path = directory.file(name)
        try lines.map(\.text).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Seconds of an exact position in frames at `rate`, with the ramps' real part.
    private func seconds(_ exact: Fraction, ramps: Double, rate: Double) -> Double {
        (Double(exact.numerator) / Double(exact.denominator) + ramps) / rate
    }

    @Test(arguments: [("song", songMap), ("odd", oddMap)])
    func everyClickOfAMapIsANoteWithinAMillisecondOfItsExactTime(name: String, lines: [MapLine]) throws {
        let map = try writeMap(lines, name: "\(name).txt")
        let file = try export(["--tempo-map", map, "--rate", "44100"])
        let expected = try exactClicks(lines, rate: 44_100)
        #expect(file.format == 0)
        #expect(file.notes.count == expected.count)
        let loudest = lines.map { Double($0.volume ?? "1")! }.max()!
        for (note, want) in zip(file.notes, expected) {
            let time = seconds(want.exact, ramps: want.ramps, rate: 44_100)
            #expect(abs(note.time - time) < 0.001, "note at \(note.time) s for a click at \(time) s")
            #expect(note.channel == 9)
            #expect(note.key == (want.bell ? 34 : 33))
            #expect(note.velocity == Int((127 * want.volume / loudest).rounded()))
        }
        // The meter where it changes, each label at its entry's first beat, the end after the last bar.
        var meters: [[Double]] = [], markers: [(Double, String)] = []
        var index = 0, exactAll = try exactClicks(lines.map { var line = $0; line.pattern = nil; return line }, rate: 44_100)
        for line in lines {
            let start = seconds(exactAll[index].exact, ramps: exactAll[index].ramps, rate: 44_100)
            if meters.last.map({ Int($0[1]) != line.beats || Int($0[2]) != line.noteValue }) ?? true {
                meters.append([start, Double(line.beats), Double(line.noteValue)])
            }
            if let label = line.label { markers.append((start, label)) }
            index += line.bars * line.beats
        }
        #expect(file.meters.count == meters.count)
        for (got, want) in zip(file.meters, meters) {
            #expect(abs(got[0] - want[0]) < 0.001 && got[1] == want[1] && got[2] == want[2], "\(got) for \(want)")
        }
        #expect(file.markers.map(\.text) == markers.map(\.1))
        for (got, want) in zip(file.markers, markers) { #expect(abs(got.time - want.0) < 0.001) }
        // The end of the last bar: the last beat and one more at the last tempo.
        exactAll.removeAll()
        let total = lines.reduce(0.0) { sum, line in
            let beats = Double(line.bars * line.beats), d = Double(line.noteValue)
            switch line.tempo {
            case .constant(let q): return sum + beats * 240 / d / Double(q)!
            case .list(let qs): return sum + qs.reduce(0.0) { $0 + 240 / d / Double($1)! }
            case .ramp(let a, let b):
                let t1 = Double(a)!, t2 = Double(b)!
                return sum + 240 / d * beats / (t2 - t1) * log(t2 / t1)
            }
        }
        #expect(abs(file.end - total) < 0.001, "ends at \(file.end) s, the map at \(total) s")
    }

    /// An hour and more at a decimal tempo: whole microseconds a quarter, and no drift.
    @Test func aDecimalTempoDoesNotDriftAndChangesTheFileTempoRarely() throws {
        let bars = 1400
        let file = try export(["--bpm", "92.5", "--meter", "5/4", "--subdivide", "3", "--count-in", "1", "--bars", "\(bars)"])
        let beat = Fraction(60 * 1000, 92_500)  // seconds
        var expected: [(time: Double, key: Int, velocity: Int)] = []
        for k in 0..<((bars + 1) * 5) {
            let countIn = k < 5
            let level = countIn ? 0.5 : 1.0
            for j in 0..<3 {
                let time = beat * Int128(3 * k + j)
                let key = j == 0 && k % 5 == 0 ? 34 : 33
                let velocity = Int((127 * level * (j == 0 ? 1 : 0.75)).rounded())
                expected.append((Double(time.numerator) / Double(time.denominator * 3), key, velocity))
            }
        }
        #expect(file.notes.count == expected.count)
        var worst = 0.0
        for (note, want) in zip(file.notes, expected) {
            worst = max(worst, abs(note.time - want.time))
            #expect(note.key == want.key && note.velocity == want.velocity)
        }
        #expect(worst < 0.001, "the worst note is \(worst * 1000) ms off")
        // 648648.648... µs a quarter: the file alternates 648648 and 648649, seldom.
        #expect(Set(file.tempos.map { Int($0[1]) }).isSubset(of: [648_648, 648_649]))
        #expect(file.tempos.count < expected.count / 300, "\(file.tempos.count) tempo events")
        #expect(file.meters.count == 1 && file.meters[0] == [0, 5, 4])
    }

    @Test func theSpeedTrainerAndPolyrhythmAreExportedAtTheirTimes() throws {
        let file = try export(["--bpm", "100", "--step", "-7.5/1", "--until", "80", "--meter", "2/4", "--bars", "5",
                               "--polyrhythm", "3:2"])
        var expected: [Double] = []
        var start = Fraction(0)
        for bpm in ["100", "92.5", "85", "80", "80"] {
            let beat = Fraction(60 * 1000, Int128(try Tempo(parsing: bpm).millibeatsPerMinute))
            let bar = beat * 2
            // The bell and the second voice's first click together, its two others, and the second beat.
            for offset in [Fraction(0), Fraction(0), Fraction(bar.numerator, bar.denominator * 3), beat,
                           Fraction(bar.numerator * 2, bar.denominator * 3)] {
                let time = start + offset
                expected.append(Double(time.numerator) / Double(time.denominator))
            }
            start = start + bar
        }
        let times = file.notes.map(\.time)
        #expect(times.count == expected.count)
        for (got, want) in zip(times, expected.sorted()) { #expect(abs(got - want) < 0.001, "\(got) for \(want)") }
        let tempos = file.tempos.map { Int($0[1]) }
        // 100, 92.5, 85 and 80 quarter notes a minute.
        #expect(tempos.count == 4)
        for (got, bpm) in zip(tempos, [100.0, 92.5, 85, 80]) { #expect(abs(Double(got) - 60e6 / bpm) <= 1) }
    }

    /// 2+2+3/8: the bell on the one, the softer bell (an accent) where each later group starts.
    @Test func anAdditiveMetersAccentsAreSofterBells() throws {
        let file = try export(["--bpm", "160", "--meter", "2+2+3/8", "--bars", "2"])
        let bar = [(34, 127), (33, 127), (34, 64), (33, 127), (34, 64), (33, 127), (33, 127)]
        #expect(file.notes.map { [$0.key, $0.velocity] } == (bar + bar).map { [$0.0, $0.1] })
        #expect(file.meters == [[0, 7, 8]])
        for (j, note) in file.notes.enumerated() { #expect(abs(note.time - Double(j) * 60 / 160) < 0.001) }
    }

    @Test func aTempoTooSlowForMIDIOrAFloatFormatIsRefusedAndLeavesNoFile() throws {
        let output = directory.file("slow.mid")
        let slow = try run(metronomeBinary(), ["--bpm", "3", "--bars", "1", "--output", output])
        #expect(slow.status == 64 && slow.standardError.contains("MIDI file"), "\(slow.standardError)")
        let float = try run(metronomeBinary(), ["--bpm", "90", "--bars", "1", "--format", "float", "--output", output])
        #expect(float.status == 64 && float.standardError.contains("MIDI"), "\(float.standardError)")
        #expect(directory.contents().isEmpty)
    }

    @Test func theHelpNamesMIDIFilesInAndOut() throws {
        let help = try run(metronomeBinary(), ["--help"])
        #expect(help.status == 0)
        let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(".aiff, or .mid (a Standard MIDI File"), "\(text)")
        #expect(text.contains("or a MIDI file's tempo map"))
        #expect(text.contains("--output song.mid"))
    }
}
