import Foundation
import Glibc
import Testing
@testable import MetronomeTiming
@testable import MetronomeListening
@testable import MetronomeSession
@testable import MetronomeSupport
import MetronomeTestSupport

/// The practice log: the line a live run appends, tallied on the manual clock
/// and written by the binary, whole whatever happens to it.
@Suite struct PracticeLogTests {
    let home = TemporaryDirectory()

    func instant(_ milliseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }

    @Test func theTallyCountsPlayingTimeWithoutPausesAndTheTemposBeatsPlayedAt() {
        var tally = PracticeTally()
        tally.wake(at: instant(0), playing: true)
        tally.wake(at: instant(1_500), playing: false)  // paused at 1.5 s
        tally.wake(at: instant(4_000), playing: true)   // resumed at 4 s
        tally.wake(at: instant(4_250), playing: true)
        tally.wake(at: instant(5_000), playing: false)  // the end
        #expect(tally.playingNanoseconds == 2_500_000_000)
        tally.beat(at: Tempo(bpm: 90)!, in: Meter(beatsPerBar: 3, noteValue: 4)!)
        tally.beat(at: Tempo(millibeatsPerMinute: 92_500)!, in: .common)
        tally.beat(at: Tempo(bpm: 88)!, in: .common)
        #expect(tally.slowest == Tempo(bpm: 88)! && tally.fastest == Tempo(millibeatsPerMinute: 92_500)! && tally.lastTempo == Tempo(bpm: 88)!)
        #expect(tally.meter == Meter(beatsPerBar: 3, noteValue: 4)!)
    }

    @Test func aRecordIsOneLineOfJSONWithTheDocumentedFields() throws {
        var tally = PracticeTally()
        tally.wake(at: instant(0), playing: true)
        tally.wake(at: instant(61_234), playing: false)
        tally.beat(at: Tempo(bpm: 80)!, in: .common)
        tally.beat(at: Tempo(millibeatsPerMinute: 85_500)!, in: .common)
        tally.started(song: "Intro \"A\"")
        tally.started(song: "Waltz")
        // Two notes, 1 ms and 5 ms early: a mean of -3 ms and a spread of 2.
        let take = TakeStatistics(matches: [NoteMatch(target: .init(frame: 0, index: 0, beatOfBar: 0), offsetFrames: -48, rate: .standard),
                                            NoteMatch(target: .init(frame: 24_000, index: 1, beatOfBar: 1), offsetFrames: -240, rate: .standard)],
                                  misses: 2, extras: 1)
        let record = PracticeRecord(start: WallClockStamp(text: "2026-11-28T00:41:02+01:00"), end: WallClockStamp(text: "2026-11-28T00:42:05+01:00"),
                                    tally: tally, target: PracticeLogTarget(path: "/x", preset: "ballad", setlist: "/s/tonight.txt"),
                                    meter: .common, trainerStart: Tempo(bpm: 80)!, take: take)
        let line = record.line
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["start"] as? String == "2026-11-28T00:41:02+01:00" && object["end"] as? String == "2026-11-28T00:42:05+01:00")
        #expect(object["playingSeconds"] as? Double == 61.234)
        #expect(object["preset"] as? String == "ballad" && object["setlist"] as? String == "/s/tonight.txt")
        #expect(object["songs"] as? [String] == ["Intro \"A\"", "Waltz"])
        #expect(object["bpmMin"] as? Double == 80 && object["bpmMax"] as? Double == 85.5 && object["meter"] as? String == "4/4")
        #expect(object["trainerStart"] as? Double == 80 && object["trainerEnd"] as? Double == 85.5)
        let figures = try #require(object["take"] as? [String: Any])
        #expect(figures["notes"] as? Int == 2 && figures["misses"] as? Int == 2)
        #expect(figures["meanMs"] as? Double == -3 && figures["spreadMs"] as? Double == 2)
    }

    /// The environment a run of the binary gets: its own folders, and no config file.
    var environment: [String: String] {
        ["XDG_STATE_HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "HOME": home.path, "PATH": "/usr/bin:/bin"]
    }
    var log: String { home.file("metronome/practice.jsonl") }

    /// The log's lines, each parsed; a torn one fails the test.
    func lines() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        #expect(text.isEmpty || text.hasSuffix("\n"), "the log ends with a whole line")
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "a torn line: \(line)")
        }
    }

    @Test func aLiveRunAppendsItsLineAndRendersAndNoLogAppendNothing() throws {
        defer { unlink(log); rmdir(home.file("metronome")) }
        let played = try run(metronomeBinary(), ["--bpm", "150", "--meter", "3/4", "--device", "null", "--duration", "1s"], environment: environment)
        #expect(played.status == 0, "\(played.standardError)")
        let first = try lines()
        #expect(first.count == 1)
        let line = try #require(first.first)
        #expect(line["bpmMin"] as? Double == 150 && line["bpmMax"] as? Double == 150 && line["meter"] as? String == "3/4")
        let seconds = try #require(line["playingSeconds"] as? Double)
        #expect(seconds >= 0.9 && seconds < 3, "\(seconds)")
        #expect((line["start"] as? String)?.count == 25 && line["preset"] == nil)
        for arguments in [["--bpm", "90", "--device", "null", "--duration", "1s", "--no-log"],
                          ["--bpm", "90", "--bars", "1", "--output", home.file("x.wav")],
                          ["--list-devices"]] {
            let result = try run(metronomeBinary(), arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
        // The config file's `no-log = true` turns it off too.
        let config = home.file("no-log.toml")
        let file = fopen(config, "w")!
        fputs("no-log = true\n", file)
        fclose(file)
        let quiet = try run(metronomeBinary(), ["--config", config, "--bpm", "90", "--device", "null", "--duration", "1s"], environment: environment)
        #expect(quiet.status == 0, "\(quiet.standardError)")
        #expect(try lines().count == 1)
    }

    @Test func twoMetronomesLoggingAtOnceLeaveTwoWholeLines() throws {
        defer { unlink(log); rmdir(home.file("metronome")) }
        let arguments = ["--bpm", "120", "--device", "null", "--duration", "1s"]
        var runs = 0
        for _ in 0..<4 {
            let pids = [spawnAsAShellWould(metronomeBinary(), arguments, environment: environment),
                        spawnAsAShellWould(metronomeBinary(), arguments, environment: environment)].compactMap { $0 }
            for pid in pids {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                #expect(status == 0)
                runs += 1
            }
        }
        let logged = try lines().count
        #expect(runs == 8 && logged == 8)
    }

    @Test func aRunKilledAtAnyMomentLeavesNoTornLine() throws {
        defer { unlink(log); rmdir(home.file("metronome")) }
        // One run to its end first: the log holds a line to keep whole.
        let whole = try run(metronomeBinary(), ["--bpm", "200", "--device", "null", "--duration", "1s"], environment: environment)
        #expect(whole.status == 0, "\(whole.standardError)")
        var generator = SystemRandomNumberGenerator()
        var exited = 1, runs = 1
        for _ in 0..<12 {
            guard let pid = spawnAsAShellWould(metronomeBinary(), ["--bpm", "200", "--device", "null", "--duration", "1s"],
                                               environment: environment) else { continue }
            runs += 1
            // A random moment of the run, its end (when the line is written) among them.
            usleep(UInt32.random(in: 0...1_800_000, using: &generator))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            if status == 0 { exited += 1 }
        }
        let logged = try lines().count
        #expect(logged >= 1 && logged >= exited && logged <= runs, "\(logged) lines, \(exited) of \(runs) runs ended by themselves")
    }

    @Test func onAFullDiskTheRunGoesOnWithOneWarningAndNoPartOfALine() throws {
        let mountPoint = home.file("full")
        mkdir(mountPoint, 0o755)
        defer { umount(mountPoint); rmdir(mountPoint) }
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=8k", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "a tmpfs of 8 kB, mounted as root: \(mounted.standardError)")
        let filler = fopen(mountPoint + "/filler", "w")!
        while fputs(String(repeating: "x", count: 1_024), filler) >= 0, fflush(filler) == 0 {}
        fclose(filler)
        var full = environment
        full["XDG_STATE_HOME"] = mountPoint
        let result = try run(metronomeBinary(), ["--bpm", "120", "--device", "null", "--duration", "1s"], environment: full)
        #expect(result.status == 0)
        #expect(result.standardError == "metronome: practice log '\(mountPoint)/metronome/practice.jsonl' not written: No space left on device\n")
        var status = stat()
        #expect(stat(mountPoint + "/metronome/practice.jsonl", &status) != 0 || status.st_size == 0)
        unlink(mountPoint + "/metronome/practice.jsonl")
        rmdir(mountPoint + "/metronome")
        unlink(mountPoint + "/filler")
    }
}
