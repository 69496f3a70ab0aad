import MetronomeCommandLine
import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeCommandLine
import MetronomeTestSupport

/// What a bad option value says: the value as the user typed it and what would be right.
@Suite struct OptionMessageTests {
    private func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return CommandFailure.from(error)?.message ?? "not an error of ours: \(error)"
        }
    }

    @Test func aNegativePolyrhythmIsItsOwnValueNotAMissingOne() throws {
        #expect(message { _ = try Polyrhythm(parsing: "-3:2", beatsPerBar: 4) }
            == "polyrhythm '-3:2' is negative: use 1 to 16 clicks against 1 to 4 beats, e.g. 3:2")
        for (option, value, says) in [("--polyrhythm", "-3:2", "polyrhythm '-3:2' is negative"), ("--meter", "-3/4", "meter '-3/4'"),
                                      ("--gap", "-3:1", "gap '-3:1'")] {
            let result = try run(metronomeBinary(), [option, value, "--bars", "1", "--output", "/nonexistent/x.wav"])
            #expect(result.status == 64)
            #expect(result.standardError.hasPrefix("metronome: " + says), "\(result.standardError)")
            #expect(!result.standardError.contains("Missing value"))
        }
    }

    @Test func aPatternNamesTheCharacterItCannotPlay() {
        #expect(message { _ = try BeatPattern(parsing: "Xéx", beatsPerBar: 3) }
            == "pattern 'Xéx' has 'é' at beat 2: use X (bell), x (beat) or . (silent), one a beat")
        // Counted in characters: 'X.ü' is three beats, not four.
        #expect(message { _ = try BeatPattern(parsing: "X.x", beatsPerBar: 4) }?.contains("has 3 beats") == true)
        #expect(message { _ = try BeatPattern(parsing: "X.🥁", beatsPerBar: 3) }?.contains("has '🥁' at beat 3") == true)
    }

    @Test(arguments: ["1234567890123456789", "12345678901234567", "99999999999999999999999999", "1000.001", "1000.0000000000000000001"])
    func aLongTempoIsOutOfRangeNotNotANumber(bpm: String) {
        #expect(message { _ = try Tempo(parsing: bpm) } == "bpm '\(bpm)' is out of range: use 1 to 1000")
    }

    @Test func longTextsOfAnAllowedTempoAreRead() throws {
        #expect(try Tempo(parsing: "0000000000000000000000120").millibeatsPerMinute == 120_000)
        #expect(try Tempo(parsing: "92.50000000000000000000000").millibeatsPerMinute == 92_500)
        #expect(message { _ = try Tempo(parsing: "92.5000000000000000000001") }?.contains("more than 3 decimal places") == true)
        #expect(message { _ = try Tempo(parsing: "12a") }?.contains("is not a number") == true)
        // In a map too.
        #expect(throws: TimingError(.malformed, "map.txt:1:3: tempo '12345678901234567890' is out of range: use 1 to 1000 quarter notes a minute")) {
            try TempoMap(parsing: Array("4 12345678901234567890\n".utf8), name: "map.txt")
        }
    }

    @Test func anUnknownStartLabelListsAFewOfTheMapsLabels() throws {
        let text = (1...100_000).map { "l\($0): 1 120" }.joined(separator: "\n")
        let map = try TempoMap(parsing: Array(text.utf8), name: "big.txt")
        let directory = TemporaryDirectory()
        let big = directory.file("big.txt"), small = directory.file("s.txt")
        try text.write(toFile: big, atomically: true, encoding: .utf8)
        #expect(map.entries.count == 100_000)
        #expect(throws: CommandFailure(status: 64, message: "--start-at 'zz': no entry of '\(big)' has that label; its labels are l1, l2, l3, l4, l5 and 99995 more")) {
            _ = try parsedSettings("--tempo-map", big, "--start-at", "zz")
        }
        try "a: 1 120\nb: 1 90\n2 100".write(toFile: small, atomically: true, encoding: .utf8)
        #expect(throws: CommandFailure(status: 64, message: "--start-at 'zz': no entry of '\(small)' has that label; its labels are a, b")) {
            _ = try parsedSettings("--tempo-map", small, "--start-at", "zz")
        }
    }
}
