import CAllocationCounter
import Foundation
import Testing
import MetronomeTestSupport

/// `--silent`: no sound device and no ALSA, the beat kept by the monotonic clock.
@Suite(.serialized) struct SilentTests {
    /// strace sees no ALSA configuration, no /dev/snd and no sound server's socket; the same run
    /// without --silent reads ALSA's configuration (the check can fail).
    /// Not under a sanitizer: strace and an instrumented binary do not mix.
    @Test(.enabled(if: metronome_counting_available() != 0, "strace and a sanitizer's binary do not mix"))
    func silentOpensNoSoundDeviceNorALSA() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is needed: run scripts/setup --test")
        let directory = TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": directory.path, "XDG_CONFIG_HOME": directory.path]
        for silent in [true, false] {
            let traced = try run("/usr/bin/strace", ["-f", "-o", directory.file("calls"), "-e", "trace=open,openat,connect", metronomeBinary()]
                                     + (silent ? ["--silent"] : []) + ["--bpm", "240", "--bars", "2"], environment: environment)
            #expect(traced.status == 0)
            #expect(traced.standardOutput.split(separator: "\n").count == 2, "a line a bar: \(traced.standardOutput)")
            let calls = try String(contentsOfFile: directory.file("calls"), encoding: .utf8).split(separator: "\n")
            let sound = calls.filter { call in ["alsa", "/dev/snd", "pipewire-0", "pulse/native"].contains { call.contains($0) } }
            if silent {
                #expect(sound.isEmpty, "\(sound)")
                #expect(!traced.standardError.contains("audio device"), "\(traced.standardError)")
            } else {
                #expect(sound.contains { $0.contains("alsa.conf") }, "the run without --silent reads ALSA's configuration")
            }
        }
    }

    /// In a terminal, --silent draws and takes the keys on the exact grid: five Ups at 120 give
    /// the 125 grid from a beat of the 120 one, and nothing is said of a device.
    @Test(.enabled(if: PracticeKeysTests.enabled))
    func theKeysKeepTheGridWithoutASoundDevice() throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("trace.jsonl"), errors = directory.file("stderr")
        let pane = try TmuxPane(command: "XDG_STATE_HOME=\(directory.path) \(metronomeBinary()) --silent --bpm 120 --trace \(trace) 2>\(errors)")
        try pane.waitUntil("the first clicks") { PracticeKeysTests.read(trace).clicks.count >= 2 }
        #expect(try pane.capture().contains("120 bpm"))
        try PracticeKeysTests.expectFiveUpsGiveA125Grid(pane, trace: trace)
        #expect((try? String(contentsOfFile: errors, encoding: .utf8)) == "")
    }
}
