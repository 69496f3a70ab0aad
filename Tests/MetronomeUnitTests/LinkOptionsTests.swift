import Foundation
@testable import MetronomeCommandLine
import Testing
@testable import MetronomeSession
import MetronomeTestSupport

/// `--link` and `--link-start-stop` as the command line reads them, and the
/// options they do not mix with (exit 64, one line naming the option).
@Suite struct LinkOptionsTests {
    @Test func linkAndStartStopAreRead() throws {
        #expect(try parsedSettings("--bpm", "90").link == nil)
        #expect(try parsedSettings("--link", "--bpm", "90").link == LinkSettings(startStopSync: false))
        // Sharing start and stop is playing in the session.
        #expect(try parsedSettings("--link-start-stop").link == LinkSettings(startStopSync: true))
        #expect(try parsedSettings("--link", "--link-start-stop", "--meter", "3/4", "--pattern", "X.x").link == LinkSettings(startStopSync: true))
    }

    @Test(arguments: [
        (["--output", "x.wav", "--duration", "1"], "--output"), (["--bars", "4"], "--bars"), (["--step", "5/4", "--until", "140"], "--step"),
        (["--gap", "3:1"], "--gap"), (["--random-mute", "20"], "--random-mute"), (["--count-in", "1"], "--count-in"),
        (["--subdivide", "2"], "--subdivide"), (["--polyrhythm", "3:2"], "--polyrhythm"),
    ])
    func optionsThatDoNotMixWithLinkExit64WithOneLine(arguments: [String], named: String) throws {
        for link in ["--link", "--link-start-stop"] {
            let result = try run(metronomeBinary(), [link] + arguments)
            #expect(result.status == 64, "\(arguments)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(result.standardError)")
            #expect(lines.first == "metronome: \(named) does not mix with --link: the session's beats lead; play without --link for \(named)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test func aTempoMapDoesNotMixWithLink() throws {
        let directory = TemporaryDirectory()
        let map = directory.file("song.txt")
        try "4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        let result = try run(metronomeBinary(), ["--link", "--tempo-map", map])
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: --tempo-map does not mix with --link: the session's beats lead; play without --link for --tempo-map\n")
    }

    @Test func aSetlistDoesNotMixWithLink() throws {
        let directory = TemporaryDirectory()
        let setlist = directory.file("set.txt")
        try "Opener: 120\nWaltz: 90 3/4\n".write(toFile: setlist, atomically: true, encoding: .utf8)
        let result = try run(metronomeBinary(), ["--link", "--setlist", setlist])
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: --setlist does not mix with --link: the session's beats lead; play without --link for --setlist\n")
    }
}
