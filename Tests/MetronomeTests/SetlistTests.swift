import Foundation
@testable import Metronome
import Testing

/// `--setlist FILE` and `--song NAME`: the file read and checked before anything plays.
@Suite(.serialized) struct SetlistTests {
    let directory = TemporaryDirectory()

    private func write(_ text: String, name: String = "set.txt") throws -> String {
        let path = directory.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        ("Intro: 120\nno colon here\n", "set.txt:2:1: a song is 'name: TEMPO [METER]' or 'name: FILE'"),
        ("# show\nIntro: 120\n  Waltz: 90 4/3\n", "set.txt:3:13: meter '4/3' has note value 3"),
        ("Intro: 0\n", "set.txt:1:8: bpm '0' is out of range"),
        ("Intro: 120 3/4 loud\n", "set.txt:1:16: unexpected 'loud' after the meter"),
        ("Intro: 120\nIntro: 90\n", "set.txt:2:1: song 'Intro' is listed twice"),
        ("Intro:\n", "set.txt:1:7: song 'Intro' has no tempo or file after its colon"),
        ("  : 120\n", "set.txt:1:3: the song has no name before its colon"),
        ("# nothing\n\n", "set.txt:3:1: the setlist has no songs"),
        ("Intro: 120\nB: 90\u{1}\n", "set.txt:2:6: not a text file"),
    ])
    func aBadLineIsItsLineAndColumnAndExit65BeforeAnythingPlays(text: String, message: String) throws {
        let path = try write(text)
        let output = directory.file("x.wav")
        let result = try run(metronomeBinary(), ["--setlist", path, "--bars", "1", "--output", output])
        #expect(result.status == 65)
        let line = result.standardError.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("metronome: " + directory.path + "/" + message), "\(line)")
        #expect(!line.contains("\n"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aSongsFileIsReadRelativeToTheSetlistAndItsFaultsStopTheRun() throws {
        try FileManager.default.createDirectory(atPath: directory.file("maps"), withIntermediateDirectories: true)
        _ = try write("2 3/4 90\n", name: "maps/waltz.txt")
        _ = try write("4 120\nverse 8 120\n", name: "maps/broken.txt")
        let set = try write("Waltz: maps/waltz.txt\nBroken: maps/broken.txt\n")
        // Read from another directory: the path is the setlist's, not the working directory's.
        let broken = try run(metronomeBinary(), ["--setlist", set, "--song", "Waltz", "--bars", "1", "--output", directory.file("x.wav")])
        #expect(broken.status == 65 && broken.standardError.contains("maps/broken.txt:2:1: 'verse' is not a number of bars"), "\(broken.standardError)")
        let missing = try write("Waltz: maps/waltz.txt\nGone: maps/none.txt\n", name: "missing.txt")
        let result = try run(metronomeBinary(), ["--setlist", missing, "--output", directory.file("x.wav")])
        #expect(result.status == 66 && result.standardError.contains("missing.txt:2:7: cannot read '\(directory.path)/maps/none.txt'"),
                "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.wav")))
    }

    /// The clicks of a render, from its trace: frame and whether a bell.
    private func render(_ arguments: [String]) throws -> [(frame: Int64, bell: Bool)] {
        let trace = directory.file("trace.jsonl")
        let result = try run(metronomeBinary(), arguments + ["--output", directory.file("out.wav"), "--trace", trace])
        try #require(result.status == 0, "\(result.standardError)")
        return try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            guard object["type"] as? String == "click" else { return nil }
            return ((object["frame"] as! NSNumber).int64Value, object["sound"] as? String == "bell")
        }
    }

    @Test func theSongChosenPlaysItsTempoMeterOrMap() throws {
        _ = try write("intro: 1 120\n2 6/8 97.5\n", name: "song.txt")
        let set = try write("Opener: 137.5\nWaltz: 90 3/4 # slow\nTheSong: song.txt\n")
        let waltz = try render(["--setlist", set, "--song", "Waltz", "--bars", "2"])
        let beat = Fraction(60 * 48_000 * 1000, 90_000)
        #expect(waltz.map(\.frame) == (0..<6).map { (beat * Int128($0)).nearestFrame })
        #expect(waltz.map(\.bell) == [true, false, false, true, false, false])
        let opener = try render(["--setlist", set, "--bars", "1"])
        #expect(opener.map(\.frame) == (0..<4).map { (Fraction(60 * 48_000 * 1000, 137_500) * Int128($0)).nearestFrame })
        // A map's song plays the map once, as --tempo-map does.
        let song = try render(["--setlist", set, "--song", "TheSong"])
        let direct = try render(["--tempo-map", directory.file("song.txt")])
        #expect(song.map(\.frame) == direct.map(\.frame) && song.count == 4 + 12)
    }

    @Test func optionsThatClashWithASetlistAreExit64() throws {
        let set = try write("Intro: 120\n")
        for arguments in [["--setlist", set, "--bpm", "90"], ["--setlist", set, "--tempo-map", set], ["--song", "Intro"],
                          ["--setlist", set, "--song", "Outro"], ["--setlist", set, "--start-at", "a"]] {
            let result = try run(metronomeBinary(), arguments + ["--output", directory.file("x.wav"), "--bars", "1"])
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }

    @Test func theHelpExplainsTheSetlistItsFormatAndItsKeys() throws {
        let help = try run(metronomeBinary(), ["--help"])
        #expect(help.status == 0)
        let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["--setlist <file>", "'name: TEMPO [METER]' or 'name: FILE'", "# comments",
                       "keys n and p move to the next and previous song at the next bar line", "--song <name>", "e.g. --song Waltz"] {
            #expect(text.contains(phrase), "\(phrase)")
        }
    }

    @Test func withoutATerminalTheSongIsALineBeforeItsBarsAndARenderTracesIt() throws {
        let set = try write("Opener: 240\nWaltz: 240 3/4\n")
        let live = try run(metronomeBinary(), ["--setlist", set, "--song", "Waltz", "--bars", "2"],
                           environment: ["ALSA_CONFIG_PATH": "/nonexistent"])
        #expect(live.status == 0, "\(live.standardError)")
        let lines = live.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "song 2/2 Waltz")
        #expect(lines.dropFirst().first?.hasPrefix("bar 1  240 bpm 3/4") == true, "\(lines)")
        let trace = directory.file("render.jsonl")
        let render = try run(metronomeBinary(), ["--setlist", set, "--bars", "1", "--output", directory.file("x.mid"), "--trace", trace])
        #expect(render.status == 0, "\(render.standardError)")
        let songLines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"song\"") }
        #expect(songLines == [#"{"type":"song","song":1,"of":2,"name":"Opener","frame":0}"#])
    }

    /// Clicks a second long overlap at 600 bpm: a track starting with a slow song leaves room for it from the start.
    @Test func theGainLeavesRoomForTheFastestSongToCome() {
        let rate = SampleRate.standard
        let ringing = Sound(samples: [Float](repeating: 0.5, count: 48_000), rate: rate)
        let sounds = ClickSounds(beat: ringing, bell: ringing)
        var settings = Settings()
        let slow = SongList.Song(name: "Slow", source: SongList.constant(Tempo(bpm: 60)!, meter: .common))
        let fast = SongList.Song(name: "Fast", source: SongList.constant(Tempo(bpm: 600)!, meter: .common))
        settings.songs = SongList(songs: [slow, fast], current: 0)
        settings.plan = slow.source
        let (withFast, _, _) = Session.makeTrack(settings, sounds: sounds, rate: rate)
        settings.songs = SongList(songs: [slow], current: 0)
        let (alone, _, _) = Session.makeTrack(settings, sounds: sounds, rate: rate)
        settings.songs = SongList(songs: [fast], current: 0)
        settings.plan = fast.source
        let (fastAlone, _, _) = Session.makeTrack(settings, sounds: sounds, rate: rate)
        #expect(withFast.gain == fastAlone.gain)
        #expect(withFast.gain < alone.gain)
    }
}
