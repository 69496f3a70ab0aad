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
    @Test func eachValueIsParsedByItsOwnTypeAsTheLineIsRead() throws {
        let command = try MetronomeCommand.parse(["--bpm", "92.5", "--meter", "7/8", "--rate", "44100", "--duration", "1h30m",
                                                  "--easing", "sine", "--click-at", "center", "--style", "unicode", "--until", "140",
                                                  "--step", "5/4", "--count-in", "2", "--latency", "20"])
        #expect(command.tempo.bpm == (try Tempo(parsing: "92.5")))
        #expect(command.tempo.meter == (try Meter(parsing: "7/8")))
        #expect(command.sound.rate == (try SampleRate(parsing: "44100")))
        #expect(command.output.duration?.value == (try Playtime(parsing: "90m")))
        #expect(command.picture.easing == .sine && command.picture.clickAt == .center && command.picture.style == .unicode)
        #expect(command.practice.until == (try Tempo(parsing: "140")) && command.practice.countIn?.bars == 2)
        #expect(command.device.latency == (try Latency(parsing: "20")))
    }

    /// A bad value is its own type's line and status, not the parser's sentence around it.
    @Test(arguments: [(["--bpm", "abc"], "bpm 'abc' is not a number"), (["--meter", "-3/4"], "meter '-3/4'"),
                      (["--count-in", "65"], "count-in '65' is not allowed"), (["--angle", "91"], "angle '91' is not allowed"),
                      (["--bars", "1", "--duration", "2"], "--bars and --duration both set the length")])
    func aBadValueIsItsTypesOwnLine(arguments: [String], says: String) {
        #expect {
            _ = try parsedSettings(arguments)
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            return failure.status == 64 && failure.message.hasPrefix(says) && !failure.message.contains("is invalid for")
        }
    }

    /// Checking the options reads no file: a missing tempo map passes the
    /// parse and is found once, when the run reads it (66), not twice.
    @Test func validatingReadsNoFileAndTheMapIsReadOnce() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("no-such-map.txt")
        let command = try MetronomeCommand.parse(["--tempo-map", missing])
        #expect(throws: SessionError.self) { try command.settings() }
        do { _ = try command.settings() } catch { #expect(CommandFailure.from(error)?.status == SysExit.noInput.rawValue) }
        // The same map read by the run: its bars in the plan.
        let map = directory.file("map.txt")
        try "2 3/4 100\n1 4/4 120\n".write(toFile: map, atomically: true, encoding: .utf8)
        let settings = try MetronomeCommand.parse(["--tempo-map", map]).settings()
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
