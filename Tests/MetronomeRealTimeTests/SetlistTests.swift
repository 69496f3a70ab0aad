import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

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

    /// Setlists written on Windows (CRLF, a byte order mark) read as the same songs.
    @Test func crlfLinesAndAByteOrderMarkReadAsTheSameSongs() throws {
        let unix = "# show\nIntro: 120\nWaltz: 90 3/4 # slow\nSong: maps/song.txt\n"
        let windows = Array("\u{FEFF}".utf8) + Array(unix.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let expected = try Setlist(parsing: Array(unix.utf8), name: "set.txt")
        #expect(try Setlist(parsing: windows, name: "set.txt") == expected)
        #expect(expected.songs.map(\.name) == ["Intro", "Waltz", "Song"])
        // A lone CR is no line end: it is still refused, at its place.
        #expect(throws: TimingError(.malformed, "set.txt:1:11: not a text file (a control character)")) {
            try Setlist(parsing: Array("Intro: 120\rWaltz: 90\n".utf8), name: "set.txt")
        }
    }

    /// A comment starts at a `#` that begins a line or follows a space or tab; elsewhere it is part of the text.
    @Test func aHashInsideANameOrFileIsNoComment() throws {
        let list = try Setlist(parsing: Array("C# Blues: 120 # shuffle\nF#m:90 3/4\n\t# a comment\nTake#2: take#2.mid\n#Intro: 100\n".utf8), name: "set.txt")
        #expect(list.songs.map(\.name) == ["C# Blues", "F#m", "Take#2"])
        #expect(list.songs.map(\.kind) == [.tempo(Tempo(bpm: 120)!, .common), .tempo(Tempo(bpm: 90)!, try Meter(parsing: "3/4")), .file("take#2.mid")])
    }

    /// A show of 100,000 songs reads every one, in order (names are checked for repeats by a set, not song by song).
    @Test func aLongSetlistReadsEverySong() throws {
        let text = (1...100_000).map { "Song \($0): \(60 + $0 % 200)" }.joined(separator: "\n")
        let list = try Setlist(parsing: Array(text.utf8), name: "set.txt")
        #expect(list.songs.count == 100_000)
        #expect(list.songs.last?.name == "Song 100000" && list.songs.last?.line == 100_000)
        // One line of 100,000 words (a file name with spaces) is read once, not once a word.
        let long = try Setlist(parsing: Array(("Long: " + Array(repeating: "a", count: 100_000).joined(separator: " ") + " 3/4").utf8), name: "set.txt")
        #expect(long.songs.count == 1 && long.songs[0].column == 7)
        let short = (1...1000).map { "Song \($0): 90" }.joined(separator: "\n")
        #expect(throws: TimingError(.malformed, "set.txt:1001:1: song 'Song 7' is listed twice: give each song its own name")) {
            try Setlist(parsing: Array((short + "\nSong 7: 90").utf8), name: "set.txt")
        }
    }

    @Test func aSongsFileIsReadRelativeToTheSetlistAndItsFaultsStopTheRun() throws {
        try FileManager.default.createDirectory(atPath: directory.file("maps"), withIntermediateDirectories: true)
        _ = try write("2 3/4 90\n", name: "maps/waltz.txt")
        _ = try write("4 120\nverse 8 120\n", name: "maps/broken.txt")
        let set = try write("Waltz: maps/waltz.txt\nBroken: maps/broken.txt\n")
        // Read from another directory: the path is the setlist's, not the working directory's.
        let broken = try run(metronomeBinary(), ["--setlist", set, "--song", "Waltz", "--bars", "1", "--output", directory.file("x.wav")])
        #expect(broken.status == 65, "\(broken.standardError)")
        // The setlist's line that names the file, then the file's own line.
        #expect(broken.standardError.hasPrefix("metronome: \(set):2:9: song 'Broken': \(directory.path)/maps/broken.txt:2:1: 'verse' is not a number of bars"),
                "\(broken.standardError)")
        #expect(broken.standardError.split(separator: "\n").count == 1)
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
        let slow = SongList.Song(name: "Slow", source: SongList.constant(Tempo(bpm: 60)!, meter: .common))
        let fast = SongList.Song(name: "Fast", source: SongList.constant(Tempo(bpm: 600)!, meter: .common))
        func track(_ songs: [SongList.Song]) -> ClickTrack {
            Session.makeTrack(Settings(program: .setlist(SongList(songs: songs, current: 0))), sounds: sounds, rate: rate).0
        }
        let withFast = track([slow, fast]), alone = track([slow]), fastAlone = track([fast])
        #expect(withFast.gain == fastAlone.gain)
        #expect(withFast.gain < alone.gain)
    }
}
