import CAllocationCounter
import Foundation
@testable import Metronome
import Testing

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
