import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// `--bars N` past the end of a tempo map: the last entry's tempo and meter play on.
@Suite struct TempoMapBarsTests {
    @Test func barsPastTheEndOfAMapAreBarsOfItsLastEntry() throws {
        let map = try parseMap("a: 2 132.5\nb: 3 6/8 97\n")
        let plan = TempoPlan(.map(map, first: 0, loops: false), rate: .standard, rhythm: .plain)
        let hundredBars: Int64 = 2 * 4 + 98 * 6, fourBars: Int64 = 2 * 4 + 2 * 6, wholeMap: Int64 = 2 * 4 + 3 * 6
        #expect(plan.beats(inBars: 100) == hundredBars)
        #expect(plan.beats(inBars: 4) == fourBars)
        #expect(plan.beats(inBars: nil) == wholeMap)
        // From a label on: the bars count from there.
        let fromB = TempoPlan(.map(map, first: 1, loops: false), rate: .standard, rhythm: .plain)
        #expect(fromB.beats(inBars: 10) == Int64(10 * 6))
    }

    @Test func aHundredBarsOfAFiveBarMapRenderAHundredBars() throws {
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory, rate: try #require(SampleRate(44_100)))
        let map = directory.file("five.txt")
        try "a: 2 132.5\nb: 3 6/8 97\n".write(toFile: map, atomically: true, encoding: .utf8)
        let output = directory.file("hundred.wav")
        let result = try run(metronomeBinary(), ["--tempo-map", map, "--bars", "100", "--rate", "44100", "--output", output,
                                                 "--beat-sound", beat, "--bell-sound", bell])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)

        // Quarter notes at 132.5 for 2 bars of 4/4, then eighths at 97 quarter notes a minute
        // (194 eighths) for the other 98 bars, each in 6/8: frames 60·44100/132.5 and 60·44100/194.
        var expected: [(frame: Int64, bell: Bool)] = []
        var start = Fraction(0)
        let quarter = Fraction(60 * 44_100 * 10, 1325), eighth = Fraction(60 * 44_100, 194)
        for index in 0..<8 { expected.append(((start + quarter * Int128(index)).nearestFrame, index % 4 == 0)) }
        start = start + quarter * 8
        for index in 0..<(98 * 6) { expected.append(((start + eighth * Int128(index)).nearestFrame, index % 6 == 0)) }

        let clicks = onsets(try readSoundFile(output).samples)
        #expect(clicks.count == expected.count)
        #expect(clicks.map(\.frame) == expected.map(\.frame))
        #expect(clicks.map { $0.value < 0 } == expected.map(\.bell))
        #expect(clicks.filter { $0.value < 0 }.count == 100)
    }
}
