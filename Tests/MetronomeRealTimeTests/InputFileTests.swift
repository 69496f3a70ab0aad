import CAllocationCounter
import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
import MetronomeTestSupport

/// Inputs as a hostile user would give them: pipes, FIFOs, standard input,
/// and sound files whose headers lie. Nothing hangs, nothing crashes, every
/// refusal is one line and exit 66.
@Suite struct InputFileTests {
    let silent = ["ALSA_CONFIG_PATH": "/nonexistent"]

    /// A shell line, so that `<(...)` and `|` are the shell's own; under `timeout`, so a hang fails (124).
    func shell(_ line: String, seconds: Int = 30) throws -> RunResult {
        try run("/usr/bin/timeout", ["\(seconds)", "/bin/bash", "-c", line], environment: silent)
    }

    /// A WAV file written byte by byte: `format` 1 (PCM) or 3 (float), the sizes as given, whatever the data.
    func wav(rate: UInt32, format: UInt16 = 1, bits: UInt16 = 16, dataSize: UInt32, data: [UInt8]) -> Data {
        var bytes = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: Array("RIFF".utf8)); u32(dataSize == .max ? .max : 36 + dataSize)
        bytes.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(format); u16(1); u32(rate)
        u32(rate * UInt32(bits / 8)); u16(bits / 8); u16(bits)
        bytes.append(contentsOf: Array("data".utf8)); u32(dataSize)
        bytes.append(contentsOf: data)
        return bytes
    }

    func floats(_ values: [Float]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) } }

    @Test func aTempoMapFromStandardInputAPipeOrAProcessSubstitutionRendersAsTheFile() throws {
        let directory = TemporaryDirectory()
        let map = directory.file("song.txt")
        try "2 120\n2 3/4 90\n".write(toFile: map, atomically: true, encoding: .utf8)
        let binary = metronomeBinary()
        let reference = try shell("\(binary) --tempo-map \(map) --output \(directory.file("file.wav"))")
        #expect(reference.status == 0)
        let lines = ["cat \(map) | \(binary) --tempo-map - --output \(directory.file("dash.wav"))",
                     "\(binary) --tempo-map /dev/stdin --output \(directory.file("stdin.wav")) < \(map)",
                     "\(binary) --tempo-map <(cat \(map)) --output \(directory.file("substituted.wav"))"]
        let expected = try readSoundFile(directory.file("file.wav")).samples
        for (line, name) in zip(lines, ["dash.wav", "stdin.wav", "substituted.wav"]) {
            let result = try shell(line)
            #expect(result.status == 0, "\(line): \(result.standardError)")
            #expect(try readSoundFile(directory.file(name)).samples == expected, "\(line)")
        }
    }

    @Test func aFIFOMapIsReadWhenItsWriterComes() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("map.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--tempo-map", fifo, "--output", directory.file("out.wav")]
        process.environment = silent
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Opening for writing waits until the metronome has the FIFO open for reading.
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        _ = "1 120\n".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let map = directory.file("map.txt")
        try "1 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        #expect(try run(metronomeBinary(), ["--tempo-map", map, "--output", directory.file("file.wav")], environment: silent).status == 0)
        #expect(try readSoundFile(directory.file("out.wav")).samples == readSoundFile(directory.file("file.wav")).samples)
    }

    @Test func aTerminalOrADirectoryIsNoTempoMap() throws {
        let directory = TemporaryDirectory()
        let result = try run("/usr/bin/timeout", ["10", metronomeBinary(), "--tempo-map", directory.path, "--output", directory.file("x.wav")], environment: silent)
        #expect(result.status == 66)
        #expect(result.standardError == "metronome: cannot read tempo map '\(directory.path)': it is a directory\n")
    }

    /// Signals are blocked while the sounds load (they are the run's events): a FIFO nobody writes must not keep SIGTERM out.
    @Test func aSoundFIFOWithNoWriterGivesWayToSIGTERM() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("beat.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--bpm", "120", "--bars", "1", "--beat-sound", fifo, "--output", directory.file("out.wav")]
        process.environment = silent
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Waiting on the FIFO: it has it open.
        func holdsTheFIFO() -> Bool {
            let fds = "/proc/\(process.processIdentifier)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)")) == fifo
            }
        }
        waitUntil(seconds: 8, every: .milliseconds(10)) { holdsTheFIFO() }
        #expect(holdsTheFIFO())
        kill(process.processIdentifier, SIGTERM)
        waitUntil(seconds: 5, every: .milliseconds(10)) { !process.isRunning }
        #expect(!process.isRunning, "SIGTERM ends a wait on a FIFO within 5 s")
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(directory.contents() == ["beat.fifo"])
    }

    @Test func anOggSoundThroughAPipeIsDecodedFromMemory() throws {
        let directory = TemporaryDirectory()
        let sounds = try writeImpulseSoundFiles(in: directory)
        // An Ogg sound of our own making: a bar rendered as Ogg Vorbis.
        let ogg = directory.file("beat.ogg")
        let made = try run(metronomeBinary(), ["--bpm", "600", "--bars", "1", "--beat-sound", sounds.beat, "--bell-sound", sounds.beat, "--output", ogg], environment: silent)
        #expect(made.status == 0)
        let binary = metronomeBinary()
        let piped = try shell("\(binary) --bpm 120 --bars 1 --beat-sound <(cat \(ogg)) --output \(directory.file("piped.wav"))")
        #expect(piped.status == 0, "\(piped.standardError)")
        let direct = try shell("\(binary) --bpm 120 --bars 1 --beat-sound \(ogg) --output \(directory.file("direct.wav"))")
        #expect(direct.status == 0)
        #expect(try readSoundFile(directory.file("piped.wav")).samples == readSoundFile(directory.file("direct.wav")).samples)
    }

    @Test(arguments: [UInt32(1), 100, 2_147_483_647])
    func aSoundAtARateThatCannotBeConvertedIsNamed(rate: UInt32) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("odd.wav")
        try wav(rate: rate, dataSize: 4, data: [0, 64, 0, 64]).write(to: URL(fileURLWithPath: path))
        let result = try run(metronomeBinary(), ["--bpm", "120", "--bars", "1", "--beat-sound", path, "--output", directory.file("out.wav")], environment: silent)
        #expect(result.status == 66)
        #expect(result.standardError == "metronome: sound file '\(path)' has a sample rate of \(rate) Hz: use a sound at 1000 to 768000 Hz\n")
        #expect(directory.contents() == ["odd.wav"])
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func aSoundWithSamplesThatAreNotNumbersIsRefused(bad: Float) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("bad.wav")
        let data = floats([0.5, bad, 0.25])
        try wav(rate: 48000, format: 3, bits: 32, dataSize: UInt32(data.count), data: data).write(to: URL(fileURLWithPath: path))
        let result = try run(metronomeBinary(), ["--bpm", "120", "--bars", "1", "--beat-sound", path, "--format", "float", "--output", directory.file("out.wav")], environment: silent)
        #expect(result.status == 66)
        #expect(result.standardError == "metronome: sound file '\(path)' holds samples that are not numbers (NaN or infinite)\n")
    }

    /// A header of unknown length (as sox writes to a pipe) is read for what is there, in small memory.
    @Test func aHeaderThatClaimsFourGigabytesIsReadForWhatItHolds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("unknown.wav")
        let click = (0..<2400).flatMap { index -> [UInt8] in
            let value = Int16(index < 100 ? 12000 : 0)
            return withUnsafeBytes(of: value.littleEndian, Array.init)
        }
        try wav(rate: 48000, dataSize: .max, data: click).write(to: URL(fileURLWithPath: path))
        var usage = rusage()
        let status = spawnAndWait(metronomeBinary(), ["--bpm", "120", "--bars", "1", "--beat-sound", path, "--output", directory.file("out.wav")],
                                  environment: silent, usage: &usage)
        #expect(status == 0)
        // A sanitizer's shadow memory outweighs the sound: the bound holds for the plain build.
        if metronome_counting_available() != 0 { #expect(usage.ru_maxrss < 200_000, "peak memory \(usage.ru_maxrss) kB: sized from the data, not the header") }
    }

    @Test func aSoundLongerThanAMinuteIsRefusedBeforeItIsHeld() throws {
        let directory = TemporaryDirectory()
        // A sparse 4 GB file whose header says so: reading stops at a minute.
        let path = directory.file("sparse.wav")
        try wav(rate: 48000, dataSize: 0xFFFF_FF00, data: []).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, 0xFFFF_FF00 + 44) == 0)
        var usage = rusage()
        let status = spawnAndWait(metronomeBinary(), ["--bpm", "120", "--bars", "1", "--beat-sound", path, "--output", directory.file("out.wav")],
                                  environment: silent, usage: &usage)
        #expect(status == 66)
        if metronome_counting_available() != 0 { #expect(usage.ru_maxrss < 400_000, "peak memory \(usage.ru_maxrss) kB") }
        let result = try run(metronomeBinary(), ["--bpm", "120", "--bars", "1", "--beat-sound", path, "--output", directory.file("out.wav")], environment: silent)
        #expect(result.standardError == "metronome: sound file '\(path)' is longer than 60 s: a click should be short\n")
    }
}

/// A long conversion (a minute of sound from 44.1 to 192 kHz takes seconds)
/// gives way to SIGTERM, though the run has its signals blocked.
@Suite struct SoundConversionSignalTests {
    /// CPU seconds `pid` has used, from /proc/PID/stat (utime + stime).
    func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func aLongConversionEndsAtSIGTERM() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("long.wav")
        let minute = Sound(samples: (0..<(44_100 * 59)).map { Float(($0 * 7919) % 2000) / 20_000 }, rate: SampleRate(unchecked: 44_100))
        try minute.write(to: path, format: OutputFormat(path: path, sampleFormat: .pcm16))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--bpm", "120", "--bars", "1", "--rate", "192000", "--beat-sound", path, "--output", directory.file("out.wav")]
        process.environment = ["ALSA_CONFIG_PATH": "/nonexistent"]
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Converting: it has spent a good part of a second of CPU (reading the file takes far less).
        waitUntil(seconds: 20, every: .milliseconds(10)) { !process.isRunning || cpuSeconds(process.processIdentifier) >= 0.5 }
        try #require(process.isRunning, "the conversion ended before the signal could be sent")
        kill(process.processIdentifier, SIGTERM)
        waitUntil(seconds: 3, every: .milliseconds(10)) { !process.isRunning }
        #expect(!process.isRunning, "SIGTERM ends the conversion within 3 s")
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(directory.contents() == ["long.wav"])
    }
}
