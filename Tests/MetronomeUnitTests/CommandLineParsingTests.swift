import ArgumentParser
@testable import MetronomeCommandLine
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
@testable import MetronomeSession
import MetronomeTestSupport

/// The command line parsed in-process: typed values, option groups, one
/// reading of the files, and the one place failures become exit statuses.
@Suite struct CommandLineParsingTests {
    /// `--silent` plays on no device: nothing that would open one, record or write a file goes with it.
    @Test func silentPlaysOnNoDeviceAndRefusesWhatWouldOpenOne() throws {
        guard case .live(let live) = try parsedSettings("--silent", "--bpm", "90").destination else { Issue.record("not live"); return }
        #expect(live.output == .silent)
        guard case .live(let plain) = try parsedSettings("--bpm", "90").destination, case .alsa = plain.output else { Issue.record("not ALSA"); return }
        for (arguments, name) in [(["--device", "hw:0"], "--device"), (["--latency", "20"], "--latency"), (["--jack"], "--jack"),
                                  (["--output", "a.wav", "--bars", "1"], "--output"), (["--inspect"], "--inspect or --calibrate"),
                                  (["--calibrate"], "--inspect or --calibrate"), (["--list-devices"], "--list-devices")] {
            expectRefused(["--silent"] + arguments, saying: "--silent opens no sound device: it does not go with \(name)")
        }
    }

    @Test func eachValueIsParsedByItsOwnTypeAsTheLineIsRead() throws {
        let command = try MetronomeCommand.parse(["--bpm", "92.5", "--meter", "7/8", "--rate", "44100", "--duration", "1h30m",
                                                  "--easing", "sine", "--click-at", "center", "--style", "unicode", "--until", "140",
                                                  "--step", "5/4", "--count-in", "2", "--latency", "20"])
        #expect(try command.tempo.bpm?.value() == (try Tempo(parsing: "92.5")))
        #expect(try command.tempo.meter?.value() == (try Meter(parsing: "7/8")))
        #expect(try command.sound.rate?.value() == (try SampleRate(parsing: "44100")))
        #expect(try command.output.duration?.value() == (try Playtime(parsing: "90m")))
        #expect(command.picture.easing == .sine && command.picture.clickAt == .center && command.picture.style == .unicode)
        #expect(try command.practice.until?.value() == (try Tempo(parsing: "140")) && command.practice.countIn?.value().bars == 2)
        #expect(try command.device.latency?.value() == (try Latency(parsing: "20")))
    }

    /// A bad value is its own type's line and status, not the parser's sentence around it.
    @Test(arguments: [(["--bpm", "abc"], "bpm 'abc' is not a number"), (["--meter", "-3/4"], "meter '-3/4'"),
                      (["--count-in", "65"], "count-in '65' is not allowed"), (["--angle", "91"], "angle '91' is not allowed"),
                      (["--bars", "1", "--duration", "2"], "--bars and --duration both set the length")])
    func aBadValueIsItsTypesOwnLine(arguments: [String], says: String) {
        if let failure = expectRefused(arguments, saying: says) {
            #expect(!failure.message.contains("is invalid for"), "\(failure)")
        }
    }

    /// An empty sound file name is a bad option (64) like any other, not a bug (70).
    @Test(arguments: ["--beat-sound", "--bell-sound", "--subdivision-sound", "--polyrhythm-sound"])
    func anEmptySoundFileNameIsABadOption(option: String) {
        #expect(throws: CommandFailure(status: 64, message: "\(option) needs a file name")) {
            _ = try parsedSettings(option, "")
        }
    }

    /// `--input-latency` is a plain decimal, as every other number of the command
    /// line: no sign, exponent or hexadecimal float (`0x1p4` is not 16 ms).
    @Test(arguments: ["0x1p4", "0x10", "1e1", "+5", "-0", "inf", "nan", "2000.000001"])
    func anInputLatencyIsAPlainDecimal(text: String) {
        #expect(throws: CommandFailure(status: 64, message: "input latency '\(text)' is not a round trip in ms from 0 to 2000: use e.g. --input-latency 23.4")) {
            _ = try parsedSettings("--inspect", "--input-latency", text)
        }
    }

    @Test func anInputLatencyIsReadInMilliseconds() throws {
        for (text, milliseconds) in [("23.4", 23.4), ("0", 0), ("2000", 2000), ("007.50", 7.5), ("0.000001", 0.000001)] {
            #expect(try parsedSettings("--inspect", "--input-latency", text).inspector?.inputLatencyMilliseconds == milliseconds)
        }
    }

    /// Checking the options reads no file: a missing tempo map passes the
    /// parse and is found once, when the run reads it (66), not twice.
    @Test func validatingReadsNoFileAndTheMapIsReadOnce() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("no-such-map.txt")
        let command = try MetronomeCommand.parse(["--tempo-map", missing])
        #expect(throws: SessionError.self) { try command.makeRun() }
        do { _ = try command.makeRun() } catch { #expect(CommandFailure.from(error)?.status == SysExit.noInput.rawValue) }
        // The same map read by the run: its bars in the plan.
        let map = directory.file("map.txt")
        try "2 3/4 100\n1 4/4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        let settings = try parsedSettings("--tempo-map", map)
        guard case .map(let read, first: 0, loops: false) = settings.plan else {
            Issue.record("no map in \(String(describing: settings.plan))")
            return
        }
        #expect(read.entries.map(\.bars) == [2, 1])
    }

    /// The fixed choices are enums: help and completions list their values.
    @Test func completionsListTheChoicesOfEveryEnumOption() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = MetronomeCommand.completionScript(for: shell)
            for value in ["ease-in-out", "sine", "center", "unicode", "float", "pcm16"] {
                #expect(script.contains(value), "\(shell) completions lack \(value)")
            }
        }
        let help = MetronomeCommand.helpMessage()
        for title in ["TEMPO:", "PRACTICE:", "SOUND:", "LENGTH AND FILES:", "DEVICE:", "PICTURE:"] {
            #expect(help.contains(title))
        }
    }
}
