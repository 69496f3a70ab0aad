import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomeAudio
import MetronomeTestSupport

/// A `--duration` run stops when asked, as a `--bars` or endless one does:
/// q in a terminal, or a signal from a service manager or a script's timeout.
@Suite struct DurationStopTests {
    @Test func stoppingATrackOfADurationFadesOutAtOnce() throws {
        let rate = SampleRate.standard
        let clock = ManualClock()
        let device = SimulatedDevice(rate: rate, clock: clock)
        let long = Sound(samples: [Float](repeating: 0.5, count: 48_000), rate: rate)
        let track = ClickTrack(schedule: ClickSchedule(tempo: Tempo(bpm: 60)!, rate: rate), beat: long, bell: long,
                               length: .playtime(Playtime(seconds: 10)))
        let playback = LivePlayback(track: track, sink: device, clock: clock)
        let began = clock.now()
        playback.stop()  // asked before the first block: fade from frame 0
        playback.run()
        let recorded = device.recording
        #expect(recorded.count >= playback.fadeFrames)
        #expect(recorded[0] == 0.5)
        #expect(recorded[120] < recorded[60] && recorded[60] < recorded[0])  // a falling ramp
        #expect(recorded[Int(playback.fadeFrames)...].allSatisfy { $0 == 0 })
        // Over within a buffer or two, not after the ten seconds.
        #expect(track.position < 2_048)
        #expect(clock.now().nanoseconds - began.nanoseconds < 50_000_000)
    }

    /// `--duration 1000` without a terminal ends at SIGTERM and dies of it, as the shell expects.
    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aRunOfADurationEndsAtASignal(signal: Int32) throws {
        let arguments = [metronomeBinary(), "--bpm", "120", "--duration", "1000", "--no-pendulum", "--device", "null"]
        let pid = try #require(spawn(arguments))
        var status: Int32 = 0
        defer { if waitpid(pid, &status, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) } }
        // Playing once the audio thread is there.
        func playing() -> Bool {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.contains {
                (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?.hasPrefix("metronome-audio") ?? false
            }
        }
        waitUntil(seconds: 10, every: .milliseconds(10)) { playing() }
        #expect(playing(), "the audio thread never started")
        kill(pid, signal)
        var ended = pid_t(0)
        waitUntil(seconds: 5, every: .milliseconds(10)) {
            ended = waitpid(pid, &status, WNOHANG)
            return ended != 0
        }
        #expect(ended == pid, "still playing 5 s after the signal")
        #expect(ended == pid && status & 0x7F == signal)  // died of the signal: the shell shows 128+N
    }

    /// In a terminal, q and Esc end a `--duration 1000` run at once (exit 0), the terminal restored.
    @Test(.enabled(if: TerminalTests.tmuxInstalled), arguments: ["q", "Escape"])
    func aKeyEndsARunOfADuration(key: String) throws {
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 100 --duration 1000 2>/dev/null")
        try pane.waitUntil("the picture") {
            let screen = try pane.capture()
            return screen.contains("100 bpm") && screen.contains("q quit")
        }
        try pane.send(key)
        let outcome = try pane.outcome(seconds: 5)
        #expect(outcome.status == 0)
        let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("icanon") && flags.contains("echo"))
    }

    /// As a shell starts a program: stdio on /dev/null, nothing blocked, default actions.
    private func spawn(_ arguments: [String]) -> pid_t? {
        spawnAsAShellWould(arguments[0], Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    }
}
