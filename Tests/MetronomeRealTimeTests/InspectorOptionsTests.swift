import Foundation
@testable import MetronomeCommandLine
import Testing
@testable import MetronomeSession
import MetronomeTestSupport

/// `--inspect`, `--calibrate` and their options as the command line reads
/// them, and the bad ones (exit 64, one line).
@Suite struct InspectorOptionsTests {
    @Test func theInspectorsOptionsAreRead() throws {
        #expect(try parsedSettings("--bpm", "90").inspector == nil)
        #expect(try parsedSettings("--inspect").inspector == .inspect())
        let inspect = InspectorSettings.inspect(inputDevice: "hw:1", inputLatencyMilliseconds: 23.4, report: "take.json")
        #expect(try parsedSettings("--inspect", "--input-device", "hw:1", "--input-latency", "23.4", "--report", "take.json").inspector == inspect)
        // --calibrate plays 4 bars unless told.
        let calibrate = try parsedSettings("--calibrate")
        #expect(calibrate.inspector == .calibrate() && calibrate.length == .bars(4))
        #expect(try parsedSettings("--calibrate", "--bars", "8").length == .bars(8))
    }

    @Test(arguments: [
        (["--inspect", "--calibrate"], "--inspect and --calibrate are two runs: give one of them"),
        (["--input-device", "hw:1"], "--input-device applies to --inspect or --calibrate only"),
        (["--input-latency", "20"], "--input-latency applies to --inspect or --calibrate only"),
        (["--report", "x.json"], "--report applies to --inspect or --calibrate only"),
        (["--calibrate", "--report", "x.json"], "--report applies to --inspect only"),
        (["--calibrate", "--input-latency", "20"], "--input-latency sets what --calibrate measures: give one of them"),
        (["--inspect", "--input-latency", "fast"], "input latency 'fast' is not a round trip in ms from 0 to 2000: use e.g. --input-latency 23.4"),
        (["--inspect", "--input-latency", "-3"], "input latency '-3' is not a round trip in ms from 0 to 2000: use e.g. --input-latency 23.4"),
        (["--inspect", "--input-latency", "nan"], "input latency 'nan' is not a round trip in ms from 0 to 2000: use e.g. --input-latency 23.4"),
        (["--inspect", "--input-device", ""], "input device name is empty: use e.g. default or hw:0"),
        (["--inspect", "--output", "x.wav", "--bars", "1"], "--output 'x.wav' renders a file: --inspect listens to live playback"),
        (["--calibrate", "--link"], "--calibrate plays its own clicks: play without --link"),
    ])
    func badInspectorOptionsExit64WithOneLine(arguments: [String], message: String) throws {
        let result = try run(metronomeBinary(), arguments)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.standardError == "metronome: \(message)\n", "\(arguments)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aMissingInputDeviceExits69WithOneLine() throws {
        let result = try run(metronomeBinary(), ["--inspect", "--input-device", "no_such_input", "--device", "null", "--duration", "1", "--no-pendulum"])
        #expect(result.status == 69)
        let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("metronome:") }
        #expect(lines.count == 1 && lines.first?.hasPrefix("metronome: cannot open input device 'no_such_input': ") == true, "\(result.standardError)")
    }

    /// aubio is loaded by the inspector, not at start-up: with libaubio unreadable (an empty
    /// file bound over it in a mount namespace of the run's own), a run that does not listen
    /// plays as ever, and `--inspect` says in one line what it needs and exits 69.
    @Test func aubioIsNeededOnlyToListen() throws {
        // Where the loader finds it (ldconfig's cache), whatever the architecture.
        let cache = try run("/sbin/ldconfig", ["-p"]).standardOutput.split(separator: "\n")
        let entry = try #require(cache.first { $0.contains("libaubio.so.5 ") }, "libaubio5 is needed: run scripts/setup --test")
        let found = try #require(entry.components(separatedBy: " => ").last)
        let library = URL(fileURLWithPath: found).resolvingSymlinksInPath().path
        // A mount namespace of the run's own: root's, as every namespace test here (scripts/test runs as root).
        try #require(geteuid() == 0, "binding a file over the library needs root")
        func withoutAubio(_ arguments: [String]) throws -> RunResult {
            let command = (["mount", "--bind", "/dev/null", library, "&&", "exec", metronomeBinary()] + arguments).joined(separator: " ")
            return try run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", command])
        }
        let played = try withoutAubio(["--device", "null", "--bpm", "240", "--duration", "1", "--no-pendulum"])
        #expect(played.status == 0 && played.standardError.isEmpty, "\(played.standardError)")
        let inspected = try withoutAubio(["--inspect", "--device", "null", "--input-device", "null", "--duration", "1", "--no-pendulum"])
        #expect(inspected.status == 69)
        // dlerror's words: the file as the loader found it, and why.
        #expect(inspected.standardError.hasPrefix("metronome: the practice inspector needs aubio (package libaubio5): /"), "\(inspected.standardError)")
        #expect(inspected.standardError.hasSuffix("/libaubio.so.5: file too short\n"), "\(inspected.standardError)")
        #expect(inspected.standardError.filter { $0 == "\n" }.count == 1, "\(inspected.standardError)")
    }

    @Test func theRoundTripIsSavedPerPairOfDevices() throws {
        let directory = TemporaryDirectory()
        let store = RoundTripStore(path: directory.file("config/metronome/round-trips"))
        #expect(store.roundTrip(playback: "hw:0", input: "hw:1") == nil)
        try store.save(23.4, playback: "hw:0", input: "hw:1")
        try store.save(5.25, playback: "pipewire", input: "hw:1")
        try store.save(22.9, playback: "hw:0", input: "hw:1")
        #expect(store.roundTrip(playback: "hw:0", input: "hw:1") == 22.9)
        #expect(store.roundTrip(playback: "pipewire", input: "hw:1") == 5.25)
        #expect(store.roundTrip(playback: "hw:1", input: "hw:0") == nil)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text == "pipewire\thw:1\t5.25\nhw:0\thw:1\t22.9\n")
        #expect(throws: SessionError.self) { try store.save(1, playback: "a\tb", input: "c") }
    }
}
