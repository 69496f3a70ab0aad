import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeAudio
@testable import MetronomeRender
import MetronomeTestSupport

/// What a render and a trace write, checked as a hostile user would try them:
/// nothing read is overwritten, nothing partial is left, every failure is one line and its exit code.
@Suite struct OutputSafetyTests {
    let silent = ["ALSA_CONFIG_PATH": "/nonexistent"]

    /// The binary under `timeout`, so a hang fails the test (status 124) instead of stalling the suite.
    func metronome(_ arguments: [String], seconds: Int = 20) throws -> RunResult {
        try run("/usr/bin/timeout", ["\(seconds)", metronomeBinary()] + arguments, environment: silent)
    }

    func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    /// A small tmpfs of our own: a disk that fills.
    final class SmallDisk {
        let directory = TemporaryDirectory()
        init(size: String) throws {
            let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
            try #require(mounted.status == 0, "mounting a tmpfs needs root: \(mounted.standardError)")
        }
        deinit { _ = try? run("/bin/umount", [directory.path]) }
    }

    @Test func aTraceThatNamesAnInputOrTheOutputIsRefused() throws {
        let directory = TemporaryDirectory()
        let map = directory.file("song.txt")
        try "4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        let sounds = try writeImpulseSoundFiles(in: directory)
        let output = directory.file("out.wav")
        let cases: [[String]] = [
            ["--tempo-map", map, "--output", output, "--trace", map],
            ["--bpm", "120", "--bars", "1", "--beat-sound", sounds.beat, "--output", output, "--trace", sounds.beat],
            ["--bpm", "120", "--bars", "1", "--output", output, "--trace", output],
            // The same file by another name.
            ["--tempo-map", map, "--output", output, "--trace", directory.path + "/./song.txt"],
            ["--bpm", "120", "--bars", "1", "--beat-sound", sounds.beat, "--output", sounds.beat],
        ]
        let soundBefore = try Data(contentsOf: URL(fileURLWithPath: sounds.beat))
        for arguments in cases {
            let result = try metronome(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError.hasPrefix("metronome: --") && result.standardError.contains("is the file --"), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
        #expect(contents(map) == "4 120\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sounds.beat)) == soundBefore)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aFileASetlistsSongReadsIsNeverWritten() throws {
        let directory = TemporaryDirectory()
        let song = directory.file("cut.mid")
        #expect(try metronome(["--bpm", "96", "--bars", "2", "--output", song]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: song))
        let setlist = directory.file("set.txt")
        // The song's file is named relative to the setlist, and written to by its full name.
        try "S: cut.mid\nT: 120\n".write(toFile: setlist, atomically: true, encoding: .utf8)
        for arguments in [["--output", song], ["--output", directory.file("out.wav"), "--trace", song]] {
            let result = try metronome(["--setlist", setlist] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            let option = arguments.count == 2 ? "--output" : "--trace"
            #expect(result.standardError == "metronome: \(option) '\(song)' is the file --setlist's song 'S' names: choose another file name\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: song)) == before)
        #expect(directory.contents().sorted() == ["cut.mid", "set.txt"])
    }

    @Test func aBuiltInSoundIsNeverWritten() throws {
        let directory = TemporaryDirectory()
        let sounds = try writeImpulseSoundFiles(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: sounds.beat))
        let builtIn = silent.merging([SoundLibrary.environmentVariable: directory.path]) { $1 }
        for arguments in [["--output", sounds.beat], ["--output", directory.file("out.wav"), "--trace", sounds.bell]] {
            let result = try run("/usr/bin/timeout", ["20", metronomeBinary(), "--bpm", "120", "--bars", "1"] + arguments, environment: builtIn)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            let (option, sound) = arguments.count == 2 ? ("--output", "beat") : ("--trace", "bell")
            let path = sound == "beat" ? sounds.beat : sounds.bell
            #expect(result.standardError == "metronome: \(option) '\(path)' is the file of the built-in \(sound) sound: choose another file name\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sounds.beat)) == before)
        #expect(directory.contents().sorted() == ["beat.wav", "bell.wav"])
        // A sound given in its place is read instead: the built-in one may then be written.
        let given = try run("/usr/bin/timeout", ["20", metronomeBinary(), "--bpm", "120", "--bars", "1", "--beat-sound", sounds.bell,
                                                 "--output", sounds.beat], environment: builtIn)
        #expect(given.status == 0, "\(given.standardError)")
    }

    @Test func anOutputNeverReplacesALinkAFIFOADeviceOrADirectory() throws {
        let directory = TemporaryDirectory()
        let kept = directory.file("kept.wav")
        try "precious".write(toFile: kept, atomically: true, encoding: .utf8)
        #expect(symlink(kept, directory.file("link.wav")) == 0)
        #expect(symlink(directory.file("nowhere.wav"), directory.file("dangling.mid")) == 0)
        #expect(mkfifo(directory.file("fifo.wav"), 0o600) == 0)
        #expect(mkdir(directory.file("folder.mid"), 0o700) == 0)
        // /dev/null's own numbers (major 1, minor 3, as makedev packs them), made here: the test must not risk the real one.
        let madeDevice = mknod(directory.file("null.mid"), S_IFCHR | 0o666, 1 << 8 | 3) == 0
        let cases = [("link.wav", "is a symbolic link: name the file itself, or remove the link"),
                     ("dangling.mid", "is a symbolic link: name the file itself, or remove the link"),
                     ("fifo.wav", "is a FIFO, not a regular file: choose a file name"),
                     ("folder.mid", "is a directory, not a regular file: choose a file name")]
            + (madeDevice ? [("null.mid", "is a device, not a regular file: choose a file name")] : [])
        let before = directory.contents().sorted()
        for (name, reason) in cases {
            let output = directory.file(name)
            let result = try metronome(["--bpm", "120", "--bars", "1", "--output", output, "--force"], seconds: 10)
            #expect(result.status == 73, "\(name): \(result.standardError)")
            #expect(result.standardError == "metronome: '\(output)' \(reason)\n")
        }
        #expect(directory.contents().sorted() == before, "nothing replaced, nothing left")
        #expect(contents(kept) == "precious")
        var status = stat()
        #expect(lstat(directory.file("link.wav"), &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
        #expect(lstat(directory.file("fifo.wav"), &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        if madeDevice { #expect(lstat(directory.file("null.mid"), &status) == 0 && status.st_mode & S_IFMT == S_IFCHR) }
    }

    @Test func aReadOnlyTraceIsReplacedOnlyWithForce() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("kept.jsonl")
        try "earlier run\n".write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(chmod(trace, 0o444) == 0)
        let output = directory.file("out.wav")
        let refused = try metronome(["--bpm", "120", "--bars", "1", "--output", output, "--trace", trace])
        #expect(refused.status == 73)
        #expect(refused.standardError == "metronome: '\(trace)' is read-only: use --force to replace it\n")
        #expect(contents(trace) == "earlier run\n")
        #expect(directory.contents() == ["kept.jsonl"])
        let forced = try metronome(["--bpm", "120", "--bars", "1", "--output", output, "--trace", trace, "--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(contents(trace)?.hasPrefix("{\"type\":\"tempo\"") == true)
    }

    /// `--inspect` on ALSA's null devices: played and heard, nothing in it (needs libaubio, as every take).
    func inspect(_ arguments: [String], home: TemporaryDirectory) throws -> RunResult {
        try run("/usr/bin/timeout", ["20", metronomeBinary(), "--inspect", "--device", "null", "--input-device", "null",
                                     "--bpm", "240", "--duration", "1", "--no-pendulum"] + arguments,
                environment: ["XDG_CONFIG_HOME": home.path])
    }

    @Test func aReportNamingAFileTheRunReadsIsRefused() throws {
        let directory = TemporaryDirectory()
        let map = directory.file("m.txt")
        try "4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        let sounds = try writeImpulseSoundFiles(in: directory)
        let setlist = directory.file("set.txt")
        try "S: m.txt\n".write(toFile: setlist, atomically: true, encoding: .utf8)
        let roundTrips = directory.file("metronome/round-trips")
        #expect(mkdir(directory.file("metronome"), 0o700) == 0)
        try "null\tnull\t1.5\n".write(toFile: roundTrips, atomically: true, encoding: .utf8)
        let before = directory.contents().sorted()
        let soundBefore = try Data(contentsOf: URL(fileURLWithPath: sounds.beat))
        let cases: [([String], String)] = [
            (["--tempo-map", map, "--report", map], "--report '\(map)' is the file --tempo-map names"),
            (["--beat-sound", sounds.beat, "--report", sounds.beat], "--report '\(sounds.beat)' is the file --beat-sound names"),
            (["--setlist", setlist, "--report", map], "--report '\(map)' is the file --setlist's song 'S' names"),
            (["--trace", directory.file("t.jsonl"), "--report", directory.file("t.jsonl")], "--trace '\(directory.file("t.jsonl"))' is the file --report names"),
            (["--report", roundTrips], "--report '\(roundTrips)' is the file --calibrate saves round trips in"),
        ]
        for (arguments, message) in cases {
            // The --bpm of the null-device take does not go with a map or a setlist: those are given without it.
            let given = arguments.contains("--tempo-map") || arguments.contains("--setlist")
            let result = try run("/usr/bin/timeout", ["20", metronomeBinary(), "--inspect", "--device", "null", "--input-device", "null"]
                                    + (given ? [] : ["--bpm", "240"]) + ["--duration", "1", "--no-pendulum"] + arguments,
                                 environment: ["XDG_CONFIG_HOME": directory.path])
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError == "metronome: \(message): choose another file name\n")
        }
        #expect(contents(map) == "4 120\n")
        #expect(contents(roundTrips) == "null\tnull\t1.5\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sounds.beat)) == soundBefore)
        #expect(directory.contents().sorted() == before)
    }

    @Test func aReportIsCheckedBeforeTheTake() throws {
        let home = TemporaryDirectory()
        let result = try inspect(["--report", "/nonexistent/r.json"], home: home)
        #expect(result.status == 73)
        #expect(result.standardError == "metronome: cannot create '/nonexistent/r.json': No such file or directory\n")
        #expect(result.standardOutput.isEmpty, "no take was played: \(result.standardOutput)")
    }

    @Test func aReportReplacesOnlyAWritableRegularFile() throws {
        let directory = TemporaryDirectory(), home = TemporaryDirectory()
        let kept = directory.file("kept.json")
        try "precious".write(toFile: kept, atomically: true, encoding: .utf8)
        #expect(chmod(kept, 0o444) == 0)
        #expect(symlink(directory.file("other.json"), directory.file("link.json")) == 0)
        #expect(mkfifo(directory.file("fifo.json"), 0o600) == 0)
        // /dev/full's numbers (1, 7), made here.
        let madeDevice = mknod(directory.file("full.json"), S_IFCHR | 0o666, 1 << 8 | 7) == 0
        let cases = [("kept.json", "is read-only: use --force to replace it"),
                     ("link.json", "is a symbolic link: name the file itself, or remove the link"),
                     ("fifo.json", "is a FIFO, not a regular file: choose a file name")]
            + (madeDevice ? [("full.json", "is a device, not a regular file: choose a file name")] : [])
        let before = directory.contents().sorted()
        for (name, reason) in cases {
            let report = directory.file(name)
            let result = try inspect(["--report", report], home: home)
            #expect(result.status == 73, "\(name): \(result.standardError)")
            #expect(result.standardError == "metronome: '\(report)' \(reason)\n")
            #expect(result.standardOutput.isEmpty, "refused before the take")
        }
        #expect(directory.contents().sorted() == before)
        #expect(contents(kept) == "precious")

        let forced = try inspect(["--report", kept, "--force"], home: home)
        #expect(forced.status == 0, "\(forced.standardError)")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: kept))) as? [String: Any]
        #expect(summary?["hits"] != nil)
        #expect(directory.contents().sorted() == before, "renamed into place: no temporary file left")
    }

    /// Not under a sanitizer: its shadow memory does not fit under a heap limit.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer's shadow memory does not fit under a heap limit"))
    func aMIDIExportTooLongIsRefusedNotRunOutOfMemory() throws {
        try refusesAMIDIExportTooLong(["--bpm", "1000", "--subdivide", "9", "--duration", "10h"])
    }

    /// Every beat of a ramp is a passage (a tempo change in the file), sounded or not: they count too.
    @Test(.enabled(if: metronome_counting_available() != 0, "a sanitizer's shadow memory does not fit under a heap limit"))
    func aMIDIExportOfTooManySilentTempoChangesIsRefused() throws {
        let directory = TemporaryDirectory()
        let map = directory.file("ramp.txt")
        try "1000000 1/4 200-1000\n".write(toFile: map, atomically: true, encoding: .utf8)
        try refusesAMIDIExportTooLong(["--tempo-map", map, "--random-mute", "100"])
    }

    private func refusesAMIDIExportTooLong(_ arguments: [String]) throws {
        let directory = TemporaryDirectory()
        let output = directory.file("long.mid")
        // 5.4 million clicks under a 1 GB heap: held whole, they wanted gigabytes and aborted (134), leaving the .part.
        let result = try run("/usr/bin/timeout", ["120", "/usr/bin/prlimit", "--data=1000000000", metronomeBinary()]
                                + arguments + ["--output", output], environment: silent)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError == "metronome: '\(output)' would hold more than 500000 clicks and tempo changes, the most a MIDI export holds: render fewer bars, or to a sound file\n")
        #expect(directory.contents().isEmpty, "no file and no .part: \(directory.contents())")
    }

    @Test func aTraceThatCannotBeWrittenIsAnError() throws {
        let directory = TemporaryDirectory()
        let output = directory.file("out.wav")
        let render = try metronome(["--bpm", "120", "--bars", "4", "--output", output, "--trace", "/dev/full"])
        #expect(render.status == 74)
        #expect(render.standardError == "metronome: cannot write trace '/dev/full': No space left on device\n")
        #expect(directory.contents().isEmpty, "no output and no temporary file: \(directory.contents())")

        let live = try metronome(["--bpm", "120", "--bars", "15", "--no-pendulum", "--quiet", "--trace", "/dev/full"])
        #expect(live.status == 74, "a live run ends at the first failed write, not after 30 s")
        #expect(live.standardError.hasSuffix("metronome: cannot write trace '/dev/full': No space left on device\n"))
    }

    @Test func aTraceToAFIFONobodyReadsIsRefusedAtOnce() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("trace.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try metronome(["--bpm", "120", "--bars", "1", "--output", directory.file("out.wav"), "--trace", fifo], seconds: 10)
        #expect(result.status == 73, "not 124: the open must not wait for a reader")
        #expect(result.standardError == "metronome: cannot create trace '\(fifo)': it is a FIFO that no process reads\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.wav")))
    }

    @Test func aRenderThatCannotCreateItsOutputLeavesTheTraceAlone() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("run.jsonl")
        try "earlier run\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let result = try metronome(["--bpm", "120", "--bars", "1", "--output", directory.file("missing/out.wav"), "--trace", trace])
        #expect(result.status == 73)
        #expect(contents(trace) == "earlier run\n")
    }

    @Test func aFullDiskGives74AndNoFile() throws {
        let disk = try SmallDisk(size: "64k")
        // Ogg's size is not known in advance: the disk fills while writing.
        let output = disk.directory.file("click.ogg")
        let result = try metronome(["--bpm", "120", "--duration", "10m", "--output", output])
        #expect(result.status == 74)
        #expect(result.standardError == "metronome: cannot write '\(output)': No space left on device\n")
        #expect(disk.directory.contents().isEmpty, "\(disk.directory.contents())")
    }

    @Test func aFileLargerThanItsDiskIsRefusedBeforeWriting() throws {
        let disk = try SmallDisk(size: "1m")
        let output = disk.directory.file("click.wav")
        let result = try metronome(["--bpm", "120", "--duration", "30", "--output", output])
        #expect(result.status == 73)
        #expect(result.standardError.hasPrefix("metronome: '\(output)' would take 2.9 MB but its disk has "))
        #expect(disk.directory.contents().isEmpty)
        // 292 years: refused at once, whatever the disk.
        let directory = TemporaryDirectory()
        let huge = try metronome(["--bpm", "120", "--duration", "9223372036s", "--output", directory.file("huge.wav")], seconds: 10)
        #expect(huge.status == 73)
        #expect(huge.standardError.contains("would take 885.4 TB"))
        #expect(directory.contents().isEmpty)
    }

    @Test func lengthsAFormatCannotHoldAreRefused() throws {
        let directory = TemporaryDirectory()
        let aiff = try metronome(["--bpm", "120", "--duration", "7h", "--format", "float", "--output", directory.file("long.aiff")])
        #expect(aiff.status == 64)
        #expect(aiff.standardError == "metronome: '\(directory.file("long.aiff"))' would hold 4.8 GB of audio; AIFF holds at most 4 GB: use .wav (RF64 past 4 GB) or .flac\n")
        let flac = try metronome(["--bpm", "120", "--duration", "100h", "--rate", "192000", "--output", directory.file("long.flac")])
        #expect(flac.status == 64)
        #expect(flac.standardError.contains("FLAC counts at most 2^36"))
        #expect(directory.contents().isEmpty)
        // Just under the limit is fine to start (not rendered here): the check is on the length, not the format alone.
        #expect(throws: Never.self) {
            try OutputFormat(path: "x.aiff", sampleFormat: .float).check(frames: OutputFormat.riffDataLimit / 4, path: "x.aiff")
        }
    }

    @Test func aLongOutputNameKeepsItsTemporaryNameWithinTheLimit() throws {
        let directory = TemporaryDirectory()
        for length in [242, 251] {
            let name = String(repeating: "é", count: (length - 4) / 2) + (length % 2 == 1 ? "x" : "") + ".wav"
            #expect(name.utf8.count == length)
            let output = directory.file(name)
            let result = try metronome(["--bpm", "120", "--bars", "1", "--output", output])
            #expect(result.status == 0, "\(length): \(result.standardError)")
            #expect(directory.contents() == [name])
            try FileManager.default.removeItem(atPath: output)
        }
    }

    @Test func aReadOnlyOutputIsReplacedOnlyWithForce() throws {
        let directory = TemporaryDirectory()
        let output = directory.file("keep.wav")
        try "precious".write(toFile: output, atomically: true, encoding: .utf8)
        #expect(chmod(output, 0o444) == 0)
        let refused = try metronome(["--bpm", "120", "--bars", "1", "--output", output])
        #expect(refused.status == 73)
        #expect(refused.standardError == "metronome: '\(output)' is read-only: use --force to replace it\n")
        #expect(contents(output) == "precious")
        #expect(directory.contents() == ["keep.wav"])
        let forced = try metronome(["--bpm", "120", "--bars", "1", "--output", output, "--force"])
        #expect(forced.status == 0)
        #expect(try readSoundFile(output).samples.count > 0)
    }

    @Test func aDurationShorterThanAFrameIsABadValue() throws {
        let directory = TemporaryDirectory()
        let result = try metronome(["--bpm", "120", "--duration", "0.000000001", "--output", directory.file("empty.wav")])
        #expect(result.status == 64)
        #expect(result.standardError == "metronome: duration '0.000000001' is shorter than one frame at 48000 Hz: use e.g. 1s\n")
        #expect(directory.contents().isEmpty)
        // Half a frame rounds up to one: that is a file of one frame.
        let half = try metronome(["--bpm", "120", "--duration", "0.0000105", "--output", directory.file("one.wav")])
        #expect(half.status == 0)
        #expect(try readSoundFile(directory.file("one.wav")).samples.count == 1)
    }

    /// The file is on the disk before the command says it is done: synced, renamed, and its directory synced.
    /// Not under a sanitizer: strace and an instrumented binary do not mix.
    @Test(.enabled(if: metronome_counting_available() != 0, "strace and a sanitizer's binary do not mix"))
    func theOutputIsSyncedBeforeItIsReported() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is needed: run scripts/setup --test")
        let directory = TemporaryDirectory()
        let output = directory.file("synced.wav")
        let traced = try run("/usr/bin/strace", ["-f", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2,openat",
                                                  metronomeBinary(), "--bpm", "120", "--bars", "1", "--output", output], environment: silent)
        #expect(traced.status == 0)
        let calls = traced.standardError.split(separator: "\n").map(String.init)
        let rename = try #require(calls.firstIndex { $0.contains("rename") && $0.contains("synced.wav\"") })
        let syncs = calls.indices.filter { calls[$0].contains("fsync(") && calls[$0].hasSuffix("= 0") }
        #expect(syncs.contains { $0 < rename }, "the file is synced before the rename")
        let directoryOpen = try #require(calls[rename...].firstIndex { $0.contains("openat") && $0.contains("O_DIRECTORY") })
        #expect(syncs.contains { $0 > directoryOpen }, "the directory is synced after the rename")
    }
}
