import Foundation
import Testing
import MetronomeTestSupport

/// `n` and `p` move through a setlist in a real terminal (tmux), read back through `--trace`.
@Suite(.serialized) struct SetlistKeysTests {
    struct SongEvent { let song: Int, name: String, frame: Int64 }

    static func songs(_ path: String) -> [SongEvent] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "song" else { return nil }
            return SongEvent(song: (object["song"] as? NSNumber)?.intValue ?? -1, name: object["name"] as? String ?? "",
                             frame: (object["frame"] as? NSNumber)?.int64Value ?? -1)
        }
    }

    /// A setlist of a 240 bpm song in 4/4 (a bar: 48000 frames), a 180 bpm waltz (a beat: 16000 frames) and a map.
    static func start(_ extra: String = "") throws -> (pane: TmuxPane, trace: String, directory: TemporaryDirectory) {
        let directory = TemporaryDirectory()
        try "two: 1 2/4 150\n".write(toFile: directory.file("map.txt"), atomically: true, encoding: .utf8)
        try "# tonight\nFast: 240\nWaltz: 180 3/4\nMap: map.txt\n".write(toFile: directory.file("set.txt"), atomically: true, encoding: .utf8)
        let trace = directory.file("trace.jsonl")
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --setlist \(directory.file("set.txt")) \(extra) --trace \(trace) 2>/dev/null")
        try pane.waitUntil("the first clicks") { PracticeKeysTests.read(trace).clicks.count >= 2 }
        return (pane, trace, directory)
    }

    @Test(.enabled(if: PracticeKeysTests.enabled))
    func nextAndPreviousSwitchSongsAtTheNextBarLine() throws {
        let (pane, trace, directory) = try Self.start()
        let opening = try #require(Self.songs(trace).first)
        #expect(opening.song == 1 && opening.name == "Fast" && opening.frame == 0)
        try pane.waitUntil("the status line shows the first song") { try pane.capture().contains("1/3 Fast") }
        try pane.send("n")
        var waltz: SongEvent?
        try pane.waitUntil("the waltz and six of its beats", seconds: 20) {
            waltz = Self.songs(trace).first { $0.name == "Waltz" }
            return waltz.map { event in PracticeKeysTests.read(trace).clicks.filter { $0.frame >= event.frame }.count >= 6 } ?? false
        }
        let switched = try #require(waltz)
        try pane.waitUntil("the status line shows the waltz") { try pane.capture().contains("2/3 Waltz") }
        try pane.send("p")
        var back: SongEvent?
        try pane.waitUntil("the first song again", seconds: 20) {
            back = Self.songs(trace).last { $0.name == "Fast" && $0.frame > 0 }
            return back.map { event in PracticeKeysTests.read(trace).clicks.filter { $0.frame >= event.frame }.count >= 4 } ?? false
        }
        try pane.waitUntil("the status line shows the first song again") { try pane.capture().contains("1/3 Fast") }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        _ = directory
        let returned = try #require(back)
        let clicks = PracticeKeysTests.read(trace).clicks
        // Fast's bars are 48000 frames: the waltz starts on one of its bar lines, with its bell.
        #expect(switched.frame > 0 && switched.frame % 48_000 == 0)
        let before = clicks.filter { $0.frame < switched.frame }
        for click in before { #expect(click.frame == click.beat * 12_000 && click.bell == (click.beat % 4 == 0)) }
        #expect(before.last?.frame == switched.frame - 12_000)
        // The waltz: a beat every 16000 frames from its start, a bell every third, until the next bar line after `p`.
        let inWaltz = clicks.filter { $0.frame >= switched.frame && $0.frame < returned.frame }
        for (j, click) in inWaltz.enumerated() {
            #expect(click.frame == switched.frame + Int64(j) * 16_000 && click.bell == (j % 3 == 0), "waltz beat \(j)")
        }
        #expect((returned.frame - switched.frame) % 48_000 == 0 && returned.frame == switched.frame + Int64(inWaltz.count) * 16_000)
        let after = clicks.filter { $0.frame >= returned.frame }
        for (j, click) in after.enumerated() {
            #expect(click.frame == returned.frame + Int64(j) * 12_000 && click.bell == (j % 4 == 0), "fast beat \(j)")
        }
        // Beats are counted across songs: none doubled or skipped.
        #expect(clicks.map(\.beat) == Array(0..<Int64(clicks.count)))
        let numbers = Self.songs(trace).map(\.song)
        #expect(numbers == [1, 2, 1])
    }

    @Test(.enabled(if: PracticeKeysTests.enabled))
    func whilePausedTheSongChangesAtOnceAndStartsAtTheResume() throws {
        let (pane, trace, directory) = try Self.start("--song Waltz")
        try pane.send("Space")
        try pane.waitUntil("paused") { try pane.capture().contains("PAUSED") }
        try pane.send("n")
        try pane.waitUntil("the map's song at once, still paused") {
            let screen = try pane.capture()
            return screen.contains("3/3 Map") && screen.contains("PAUSED")
        }
        let pausedClicks = PracticeKeysTests.read(trace).clicks.count
        // n at the last song stays there.
        try pane.send("n")
        try pane.send("Space")
        try pane.waitUntil("the map's beats after the resume", seconds: 20) { PracticeKeysTests.read(trace).clicks.count >= pausedClicks + 5 }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        _ = directory
        let resumed = Array(PracticeKeysTests.read(trace).clicks[pausedClicks...])
        // The map: 2/4 at 150 quarter notes a minute (19200 frames a beat), a bell every other beat, from the resume; then its tempo plays on.
        let first = resumed[0].frame
        for (j, click) in resumed.enumerated() {
            #expect(click.frame == first + Int64(j) * 19_200 && click.bell == (j % 2 == 0), "map beat \(j)")
        }
        #expect(Self.songs(trace).map(\.song) == [2, 3])
    }

    /// Songs passed over while paused never played: the trace has only the one the resume starts.
    @Test(.enabled(if: PracticeKeysTests.enabled))
    func songsPassedOverWhilePausedAreNotTraced() throws {
        let (pane, trace, directory) = try Self.start()
        try pane.send("Space")
        try pane.waitUntil("paused") { try pane.capture().contains("PAUSED") }
        try pane.send("n")
        try pane.waitUntil("the waltz, paused") { try pane.capture().contains("2/3 Waltz") }
        try pane.send("n")
        try pane.waitUntil("the map, paused") { try pane.capture().contains("3/3 Map") }
        let pausedClicks = PracticeKeysTests.read(trace).clicks.count
        try pane.send("Space")
        try pane.waitUntil("the map's beats after the resume", seconds: 20) { PracticeKeysTests.read(trace).clicks.count >= pausedClicks + 3 }
        try pane.send("q")
        #expect(try pane.outcome().status == 0)
        _ = directory
        let songs = Self.songs(trace)
        #expect(songs.map(\.song) == [1, 3], "\(songs.map(\.name))")
        // At the frame the pause began, before the first of its clicks.
        let resumed = PracticeKeysTests.read(trace).clicks[pausedClicks]
        #expect(songs.last.map { $0.frame <= resumed.frame } == true)
    }
}
