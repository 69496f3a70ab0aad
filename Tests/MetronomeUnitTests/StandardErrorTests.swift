import Foundation
import Testing
@testable import MetronomeSession
import MetronomeTestSupport

/// Every message is one line on stderr, whatever the values it quotes hold.
@Suite struct StandardErrorTests {
    @Test func controlCharactersAreShownAsText() {
        #expect(StandardError.escaped("a\nb\u{1B}[31mc\r\t\u{0}\u{7F}\u{85}\u{9B}é→") == #"a\nb\e[31mc\r\t\x00\x7f\x85\x9bé→"#)
        #expect(StandardError.escaped("pattern 'Xéx' has 'é'") == "pattern 'Xéx' has 'é'")
    }

    /// A value from the command line, reported by the argument parser's path
    /// (a bad option value) and by the run's own path (an unreadable map).
    @Test func aValueWithANewlineAndAnEscapeSequenceIsReportedOnOneSafeLine() throws {
        let value = "X\nx\u{1B}[31m"
        let pattern = try run(metronomeBinary(), ["--pattern", value])
        #expect(pattern.status == 64)
        #expect(pattern.standardError == #"metronome: pattern 'X\nx\e[31m' has '\n' at beat 2: use X (bell), x (beat) or . (silent), one a beat"# + "\n")

        let directory = TemporaryDirectory()
        let map = directory.file("no\nsuch\u{1B}[31m.txt")
        let missing = try run(metronomeBinary(), ["--tempo-map", map, "--output", directory.file("x.wav")])
        #expect(missing.status == 66)
        #expect(missing.standardError == "metronome: cannot read tempo map '\(directory.path)/no\\nsuch\\e[31m.txt': No such file or directory\n")

        let option = try run(metronomeBinary(), ["--bpm\n\u{1B}[31m", "90"])
        #expect(option.status == 64)
        #expect(option.standardError.hasPrefix(#"metronome: Unknown option '--bpm\n\e[31m'"#), "\(option.standardError)")
        #expect(option.standardError.filter { $0 == "\n" || $0 == "\u{1B}" } == "\n")
    }
}
