import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeRender
@testable import MetronomeSession
import MetronomeTestSupport

@Suite struct CommandLineTests {
    let directory = TemporaryDirectory()

    @Test(arguments: [
        (["--bpm", "0"], "'0'"), (["--bpm", "-5"], "'-5'"), (["--bpm", "nan"], "'nan'"), (["--bpm", "inf"], "'inf'"),
        (["--bpm", "1001"], "'1001'"), (["--bpm", ""], "bpm"), (["--meter", "0/4"], "'0/4'"), (["--meter", "4/0"], "'4/0'"),
        (["--meter", "4/3"], "'4/3'"), (["--meter", "33/4"], "'33/4'"), (["--rate", "7999"], "'7999'"),
        (["--rate", "192001"], "'192001'"), (["--duration", "0"], "'0'"), (["--duration", "-1m"], "'-1m'"),
        (["--duration", "soon"], "'soon'"), (["--bars", "0"], "'0'"), (["--volume", "1.5"], "'1.5'"),
        (["--volume", "-0.5"], "'-0.5'"), (["--output", "click.mp3", "--bars", "1"], "'click.mp3'"),
        (["--output", "click.wav"], "--bars"), (["--frobnicate"], "--frobnicate"),
        (["--bars", "2", "--duration", "3"], "--bars"), (["--latency", "0"], "'0'"),
        (["--angle", "0"], "'0'"), (["--angle", "91"], "'91'"), (["--fps", "0"], "'0'"), (["--fps", "500"], "'500'"),
        (["--easing", "bounce"], "'bounce'"), (["--click-at", "middle"], "'middle'"),
        (["--style", "braille"], "'braille'"),
        (["--visual-offset", "soon"], "'soon'"), (["--verbose", "--quiet"], "--verbose"),
    ])
    func badValuesExit64WithOneLineNamingThem(arguments: [String], named: String) throws {
        let result = try run(metronomeBinary(), arguments)
        #expect(result.status == 64)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(lines.first?.hasPrefix("metronome: ") == true)
        #expect(result.standardError.contains(named))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func unreadableSoundsExit66() throws {
        let text = directory.file("notes.txt")
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        for sound in [directory.file("missing.wav"), text] {
            let result = try run(metronomeBinary(), ["--beat-sound", sound, "--output", directory.file("x.wav"), "--bars", "1"])
            #expect(result.status == 66)
            #expect(result.standardError.split(separator: "\n").count == 1)
            #expect(result.standardError.contains(sound))
        }
        #expect(directory.contents() == ["notes.txt"])
    }

    @Test func anUncreatableOutputExits73() throws {
        let result = try run(metronomeBinary(), ["--output", "/nonexistent-dir/click.wav", "--bars", "1"])
        #expect(result.status == 73)
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func aNamedDeviceThatCannotOpenExits69() throws {
        let result = try run(metronomeBinary(), ["--device", "no_such_device", "--duration", "1", "--no-pendulum"])
        #expect(result.status == 69)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardError.contains("no_such_device"))
    }

    @Test func withoutADefaultDeviceItWarnsOnceAndPlaysOnSilently() throws {
        // With no ALSA configuration `default` cannot open, as on a machine with no sound card.
        let result = try run(metronomeBinary(), ["--duration", "0.2", "--no-pendulum"],
                             environment: ["ALSA_CONFIG_PATH": "/nonexistent"])
        #expect(result.status == 0)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("metronome: warning: cannot open audio device 'default': ") == true)
    }

    @Test func withoutATerminalItPrintsPlainLinesAndNoEscapes() throws {
        let silent = ["ALSA_CONFIG_PATH": "/nonexistent"]
        let bars = try run(metronomeBinary(), ["--bpm", "240", "--duration", "2.1"], environment: silent)
        #expect(bars.status == 0)
        #expect(!bars.standardOutput.contains("\u{1B}"))
        #expect(bars.standardOutput.split(separator: "\n").map { $0.prefix(6) } == ["bar 1 ", "bar 2 ", "bar 3 "])
        let clicks = try run(metronomeBinary(), ["--bpm", "240", "--duration", "1.1", "--verbose"], environment: silent)
        #expect(clicks.standardOutput.split(separator: "\n").count == 5)
        #expect(clicks.standardOutput.contains("bar 2 beat 1  frame 48000"))
        let quiet = try run(metronomeBinary(), ["--bpm", "240", "--duration", "1", "--quiet"], environment: silent)
        #expect(quiet.status == 0 && quiet.standardOutput.isEmpty)
    }

    /// `--no-pendulum` drops the picture only: without a terminal the lines are as without it.
    @Test func noPendulumKeepsTheLinesWithoutATerminal() throws {
        let silent = ["ALSA_CONFIG_PATH": "/nonexistent"]
        let bars = try run(metronomeBinary(), ["--bpm", "240", "--duration", "2.1", "--no-pendulum"], environment: silent)
        #expect(bars.status == 0)
        #expect(bars.standardOutput.split(separator: "\n").map { $0.prefix(6) } == ["bar 1 ", "bar 2 ", "bar 3 "])
        let clicks = try run(metronomeBinary(), ["--bpm", "240", "--duration", "1.1", "--no-pendulum", "--verbose"], environment: silent)
        #expect(clicks.standardOutput.split(separator: "\n").count == 5, "\(clicks.standardOutput)")
        #expect(clicks.standardOutput.contains("bar 2 beat 1  frame 48000"))
    }

    @Test func anOfflineTraceHoldsEveryClick() throws {
        let trace = directory.file("render.jsonl")
        let result = try run(metronomeBinary(), ["--bpm", "96", "--meter", "3/4", "--rate", "44100", "--bars", "5",
                                                 "--output", directory.file("x.wav"), "--trace", trace])
        #expect(result.status == 0)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == #"{"type":"tempo","bpm":"96","frame":0}"#)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 96)!, meter: try Meter(parsing: "3/4"), rate: SampleRate(44_100)!)
        let expected = (0..<15).map { click -> String in
            let sound = click % 3 == 0 ? "bell" : "beat"
            return #"{"type":"click","frame":\#(schedule.frame(ofClick: Int64(click))),"beat":\#(click),"bar":\#(click / 3 + 1),"beatInBar":\#(click % 3 + 1),"sound":"\#(sound)"}"#
        }
        let clickLines: [String] = lines.dropFirst().map { String($0) }
        #expect(clickLines == expected)
    }

    @Test func helpExplainsEveryOptionWithAnExample() throws {
        let result = try run(metronomeBinary(), ["--help"])
        #expect(result.status == 0)
        for option in ["--bpm", "--meter", "--volume", "--rate", "--bars", "--duration", "--beat-sound", "--bell-sound",
                       "--device", "--latency", "--output", "--format", "--no-pendulum", "--version", "--angle",
                       "--easing", "--click-at", "--style", "--visual-offset", "--fps", "--trace", "--verbose", "--quiet",
                       "--pattern", "--subdivide", "--swing", "--subdivision-volume", "--subdivision-sound", "--polyrhythm",
                       "--polyrhythm-sound", "--count-in", "--gap", "--random-mute", "--seed", "--step", "--until",
                       "--tempo-map", "--start-at", "--loop"] {
            #expect(result.standardOutput.contains(option), "\(option)")
        }
        #expect(result.standardOutput.contains("e.g."))
        let version = try run(metronomeBinary(), ["--version"])
        #expect(version.status == 0 && version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == MetronomeVersion.current)
    }

    /// At 80 columns (what --help wraps to when stdout is no terminal) every example is one line of its own.
    @Test func helpKeepsEachExampleOnItsOwnLineAt80Columns() throws {
        let result = try run(metronomeBinary(), ["--help"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("Examples:") })
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(examples.count >= 10)
        for line in examples {
            #expect(line.hasPrefix("  metronome "), "an example wrapped: '\(line)'")
            #expect(line.count <= 80, "'\(line)'")
        }
    }

    @Test func theBinaryRendersEveryClickOnItsFrameWithTheUsersSounds() throws {
        let rate = try #require(SampleRate(44_100))
        let sounds = impulseSounds(rate: rate)
        let beat = directory.file("beat.aiff"), bell = directory.file("bell.flac")
        try sounds.beat.write(to: beat, format: OutputFormat(path: beat, sampleFormat: .float))
        try sounds.bell.write(to: bell, format: OutputFormat(path: bell, sampleFormat: .pcm16))
        let output = directory.file("click.wav")
        let result = try run(metronomeBinary(), ["--bpm", "160", "--meter", "3/4", "--rate", "44100", "--bars", "40",
                                                 "--beat-sound", beat, "--bell-sound", bell, "--output", output])
        #expect(result.status == 0, "\(result.standardError)")
        let file = try readSoundFile(output)
        let schedule = ClickSchedule(tempo: Tempo(bpm: 160)!, meter: try Meter(parsing: "3/4"), rate: rate)
        let found = onsets(file.samples)
        #expect(found.map(\.frame) == (0..<120).map { schedule.frame(ofClick: Int64($0)) })
        #expect(found.map { $0.value < 0 } == (0..<120).map { $0 % 3 == 0 })
    }

    @Test func builtInSoundsComeFromTheEnvironmentFolderFirst() throws {
        let rate = SampleRate.standard
        let sounds = impulseSounds(rate: rate)
        try sounds.beat.write(to: directory.file("beat.wav"), format: OutputFormat(path: "x.wav", sampleFormat: .float))
        try sounds.bell.write(to: directory.file("bell.wav"), format: OutputFormat(path: "x.wav", sampleFormat: .float))
        let output = directory.file("out.wav")
        let result = try run(metronomeBinary(), ["--output", output, "--bars", "2"],
                             environment: [SoundLibrary.environmentVariable: directory.path])
        #expect(result.status == 0)
        #expect(onsets(try readSoundFile(output).samples).count == 8)
    }

    @Test func klickAgreesToWithinTheFrameItFloors() throws {
        // klick (the reference) floors click positions; the exact grid rounds
        // half up, so the two may differ by one frame and never by more.
        let klick = "/usr/bin/klick"
        try #require(FileManager.default.isExecutableFile(atPath: klick), "klick is installed by scripts/setup")
        let rate = try #require(SampleRate(44_100))
        let impulse = directory.file("impulse.wav")
        try Sound(samples: [0.5], rate: rate).write(to: impulse, format: OutputFormat(path: impulse, sampleFormat: .float))
        let reference = directory.file("klick.wav"), ours = directory.file("ours.wav")
        let klickRun = try run(klick, ["-W", reference, "-r", "44100", "-S", "\(impulse),\(impulse)", "40", "4/4", "137.5"])
        #expect(klickRun.status == 0)
        let result = try run(metronomeBinary(), ["--bpm", "137.5", "--rate", "44100", "--bars", "40", "--output", ours,
                                                 "--beat-sound", impulse, "--bell-sound", impulse])
        #expect(result.status == 0)
        let theirs = onsets(try readSoundFile(reference).samples).map(\.frame)
        let mine = onsets(try readSoundFile(ours).samples).map(\.frame)
        #expect(theirs.count == 160 && mine.count == 160)
        var differing = 0
        for (a, b) in zip(theirs, mine) {
            #expect(b - a == 0 || b - a == 1)
            if a != b { differing += 1 }
        }
        #expect(differing > 0)  // 137.5 bpm at 44.1 kHz has fractional positions: the two methods do differ
    }

    @Test(arguments: [Int32(SIGINT), Int32(SIGTERM)])
    func aSignalDuringARenderLeavesNoFileAndNoTemporaryFile(signal: Int32) throws {
        // Ten hours at 44.1 kHz: long enough that the signal always lands mid-render.
        let output = directory.file("long.wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: metronomeBinary())
        process.arguments = ["--bpm", "120", "--duration", "10h", "--rate", "44100", "--output", output]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The temporary file appears beside the output once rendering has begun.
        waitUntil(seconds: 20, every: .milliseconds(10)) { !directory.contents().isEmpty }
        #expect(!directory.contents().isEmpty, "the render never started")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        // Cleaned up, then died of the signal (a shell shows 128+N).
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(directory.contents().isEmpty, "\(directory.contents())")
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!message.contains("Fatal") && !message.contains("Stack"))
    }
}
