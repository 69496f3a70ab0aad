import Foundation
import Testing
@testable import MetronomeTiming
@testable import MetronomePendulum
import MetronomeTestSupport

@Suite(.serialized) struct RealTimeLoopbackTests {
    /// `scripts/test` sets this, so a machine without JACK fails instead of skipping.
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"

    /// The capture side and the practice inspector (`CaptureLoopbackTests`), in this serialized suite.
    @Test(.enabled(if: (JackLoopback.isInstalled && JackLoopback.canBuildRecorder && TerminalTests.tmuxInstalled) || required))
    func captureThroughTheJackPlugin() throws {
        try CaptureLoopbackTests().captureThroughTheJackPlugin()
    }

    /// Through the jack plugin alone or behind `plug`: the server's default
    /// latency, no real-time writer, and every click on the exact grid.
    @Test(.enabled(if: JackLoopback.isInstalled || required), arguments: ["loopback", "plugloopback"])
    func liveClicksThroughALSAKeepTheExactGrid(device: String) throws {
        try #require(JackLoopback.isInstalled, "jackd2 and libasound2-plugins are needed: run scripts/setup --test")
        let rate = SampleRate.standard
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: rate)
        let seconds: Int64 = 11
        let expectedClicks = schedule.firstClick(atOrAfter: seconds * 48_000)

        for attempt in 1...3 {
            let loopback = try JackLoopback()
            var result: RunResult?
            let recording = try loopback.record(seconds: 14) {
                result = try run(metronomeBinary(), ["--device", device, "--bpm", "137", "--duration", "\(seconds)",
                                                     "--no-pendulum", "--verbose", "--beat-sound", beat, "--bell-sound", bell],
                                 environment: loopback.environment)
            }
            if loopback.serverHadXrun, attempt < 3 { continue }  // the harness, not the metronome
            let played = try #require(result)
            #expect(played.status == 0, "\(played.standardError)")
            // No underrun reported, and even --verbose says nothing of real time: in front of JACK
            // (whose server may have none, as this one) the writer does not ask for it.
            #expect(played.standardError.isEmpty, "\(played.standardError)")
            #expect(played.standardOutput.hasPrefix("device '\(device)': buffer 4096 frames (85.3 ms), periods of 1024 at 48000 Hz, into JACK\n"),
                    "\(played.standardOutput.prefix(200))")
            let found = onsets(recording)
            #expect(Int64(found.count) == expectedClicks)
            guard let first = found.first else { return }
            for (click, onset) in found.enumerated() {
                // Every interval is the grid's, to the frame, in real time.
                #expect(onset.frame - first.frame == schedule.frame(ofClick: Int64(click)), "click \(click)")
                #expect((onset.value < 0) == (click % 4 == 0), "click \(click)")
            }
            return
        }
    }

    /// A `--duration` whose last click falls in its last period: the click is heard once. Drained,
    /// ALSA's jack plugin leaves its port's buffer as it was, and JACK played the last period
    /// again every cycle until the stream closed (the click four or five times over).
    @Test(.enabled(if: JackLoopback.isInstalled || required), arguments: ["loopback", "plugloopback"])
    func theLastClickIsHeardOnce(device: String) throws {
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        for attempt in 1...3 {
            let loopback = try JackLoopback()
            var result: RunResult?
            // At 120 bpm the fifth click, at 2 s, is in the period that ends at 2.005 s.
            let recording = try loopback.record(seconds: 4) {
                result = try run(metronomeBinary(), ["--device", device, "--bpm", "120", "--duration", "2.005",
                                                     "--no-pendulum", "--quiet", "--beat-sound", beat, "--bell-sound", bell],
                                 environment: loopback.environment)
            }
            if loopback.serverHadXrun, attempt < 3 { continue }
            #expect(try #require(result).status == 0)
            let found = onsets(recording)
            #expect(found.count == 5, "\(found.map(\.frame))")
            if let first = found.first { #expect(found.map { $0.frame - first.frame } == [0, 24_000, 48_000, 72_000, 96_000]) }
            return
        }
    }

    /// At 44.1 kHz behind `plug`, converted to JACK's 48, alsa-lib finds no
    /// size near a server's default (941-frame periods): the device opens at a
    /// card's, the latency such a chain always had, and `--verbose` names
    /// JACK's own periods behind the conversion.
    @Test(.enabled(if: JackLoopback.isInstalled || required))
    func aRateConvertedInFrontOfJackOpensAtSizesItTakes() throws {
        try #require(JackLoopback.isInstalled, "jackd2 and libasound2-plugins are needed: run scripts/setup --test")
        let loopback = try JackLoopback()
        let played = try run(metronomeBinary(), ["--device", "plugloopback", "--rate", "44100", "--duration", "0.5", "--no-pendulum", "--verbose"],
                             environment: loopback.environment)
        #expect(played.status == 0, "\(played.standardError)")
        #expect(played.standardOutput.hasPrefix("device 'plugloopback': buffer 1881 frames (42.7 ms), periods of 940 at 44100 Hz, into JACK (periods of 1024 at 48000 Hz)\n"),
                "\(played.standardOutput.prefix(200))")
    }

    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func thePictureFollowsTheAudioClockThroughALSA() throws {
        try #require(JackLoopback.isInstalled && TerminalTests.tmuxInstalled, "jackd2, libasound2-plugins and tmux are needed")
        try Self.expectThePictureFollowsTheAudioClock(output: ["--device", "loopback"])
    }

    /// Six seconds at 137 bpm in a terminal, played through `output` into a
    /// JACK loopback: every click traced on the grid, every picture the angle
    /// of the audio frame it says it shows, and those frames a straight line
    /// in time at the rate, no frame off it by 3 ms.
    static func expectThePictureFollowsTheAudioClock(output: [String]) throws {
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: .standard)
        let motion = PendulumMotion(schedule: schedule)
        for attempt in 1...3 {
            let loopback = try JackLoopback()
            let trace = loopback.home.file("trace.jsonl")
            let environment = loopback.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            let pane = try TmuxPane(command: "env \(environment) \(metronomeBinary()) \(output.joined(separator: " ")) --bpm 137 --duration 6 --trace \(trace) 2>\(loopback.home.file("stderr"))")
            let outcome = try pane.outcome(seconds: 30)
            if loopback.serverHadXrun, attempt < 3 { continue }
            let frames = try drawnFrames(trace)
            // While sound plays (not before the first frame is heard, not after the last):
            let playing = frames.filter { $0.audio > 0 && $0.audio < 6 * 48_000 - 2_048 }
            let fitted = AudioClockLine(playing)
            // A take in which the machine held the picture's thread or the server's past 3 ms (the host's
            // steal comes in bursts) is taken again, twice at most; the last take must keep the line.
            if attempt < 3, let worst = fitted?.worst(playing), worst >= 0.003 * 48_000 {
                print("retaken: the audio clock was \(worst) frames off its line")
                continue
            }
            #expect(outcome.status == 0)

            let objects = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.first?["type"] as? String == "tempo" && objects.first?["bpm"] as? String == "137")
            let clicks = objects.filter { $0["type"] as? String == "click" }.map { ($0["frame"] as! NSNumber).int64Value }
            #expect(clicks == (0..<schedule.firstClick(atOrAfter: 6 * 48_000)).map { schedule.frame(ofClick: $0) })

            // Every picture shows the angle of the audio frame it says it shows.
            for frame in frames {
                #expect(abs(frame.angle - motion.angle(atFrame: Double(frame.audio))) < 1e-9)
            }
            let seconds = try #require(playing.last).time - playing[0].time
            #expect(seconds > 4.5)
            #expect(Double(playing.count) / seconds >= 50)
            // ...the audio clock is a straight line in time: fit it, and no frame is off by 3 ms.
            let line = try #require(fitted)
            #expect(abs(line.slope - 48_000) < 48)  // within 0.1 % of the rate
            let worst = line.worst(playing)
            let off = playing.enumerated().filter { abs(line.deviation(of: $0.element)) >= 0.003 * 48_000 }
            #expect(worst < 0.003 * 48_000, "worst deviation \(worst) frames, \(off.count) of \(playing.count) frames off: \(off.prefix(6).map { ($0.offset, $0.element.time, $0.element.audio, line.deviation(of: $0.element)) })")
            return
        }
    }

    /// SIGSTOP for 200 ms, 100 ms after click 4 at 240 bpm: click 5 falls
    /// due in the stall. ALSA's jack plugin stops with the process, JACK skips
    /// the cycles it could not run, and nothing reports an underrun; the
    /// recorder places each cycle by JACK's clock, so the recording is what
    /// the server's clock heard.
    @Test(.enabled(if: (JackLoopback.isInstalled && JackLoopback.canBuildRecorder) || required))
    func aStoppedProcessDropsTheClicksDueAndComesBackOnTheGrid() throws {
        try #require(JackLoopback.isInstalled && JackLoopback.canBuildRecorder,
                     "jackd2, libasound2-plugins, libjack-jackd2-dev and clang are needed: run scripts/setup --test")
        let rate = SampleRate.standard
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), rate: rate)
        let clicks: Int64 = 24  // 6 s at 240 bpm

        for attempt in 1...2 {
            let loopback = try JackLoopback()
            let recorderProgram = try loopback.buildStampedRecorder()
            let file = loopback.home.file("stamped.f32"), pidFile = loopback.home.file("metronome.pid")
            let errors = loopback.home.file("stderr")
            let recorder = try loopback.launch(recorderProgram, ["jack_thru:output_1", "9", file, pidFile, "4", "200"],
                                               log: loopback.home.file("recorder.log"))
            try loopback.waitForPort("jack_thru:output_1", connectedTo: "stamped:in")
            let metronome = try loopback.launch(metronomeBinary(), ["--device", "loopback", "--bpm", "240", "--duration", "6",
                                                                    "--no-pendulum", "--beat-sound", beat, "--bell-sound", bell], log: errors)
            try "\(metronome.processIdentifier)".write(toFile: pidFile, atomically: true, encoding: .utf8)
            metronome.waitUntilExit()
            recorder.waitUntilExit()
            #expect(recorder.terminationStatus == 0)
            let recorderLog = (try? String(contentsOfFile: loopback.home.file("recorder.log"), encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            let samples = try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let found = onsets(samples)
            guard let first = found.first else {
                Issue.record("nothing recorded: \(stderr)")
                return
            }
            let heard = clicksHeard(found, from: first, on: schedule)
            // The harness on a loaded machine, not the metronome: the clicks before the stall are off.
            if heard.prefix(while: { $0.click <= 4 }).contains(where: { $0.offset != 0 }), attempt < 2 { continue }

            #expect(metronome.terminationStatus == 0, "\(stderr)")
            #expect(recorderLog.contains("stalled"), "\(recorderLog)")
            #expect(stderr.contains("metronome: 1 underrun on 'loopback'"), "\(stderr)")
            // Every click before the stall exactly on the grid; the one due in the stall dropped, not played late.
            #expect(heard.map(\.click) == Array(0...4) + Array(6..<clicks), "\(heard)")
            for click in heard where click.click <= 4 { #expect(click.offset == 0, "\(click)") }
            // After recovery: on the same grid within 1 ms, and exactly the same distance from it.
            let after = heard.filter { $0.click >= 6 }
            for click in after { #expect(abs(click.offset) <= 48, "\(click)") }
            #expect(Set(after.map(\.offset)).count == 1, "\(after)")
            for click in heard { #expect(click.bell == schedule.isBell(click: click.click), "\(click)") }
            return
        }
    }

    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func aLostSoundServerIsOneLineAndExit74WithTheTerminalRestored() throws {
        try #require(JackLoopback.isInstalled && TerminalTests.tmuxInstalled, "jackd2, libasound2-plugins and tmux are needed")
        let loopback = try JackLoopback()
        try expectALostServerEndsInOneLine(device: "loopback", environment: loopback.environment,
                                           directory: loopback.home.path, stopServer: loopback.stopServer)
    }
}
