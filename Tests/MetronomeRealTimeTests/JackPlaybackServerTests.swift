import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeTestSupport

/// `metronome --jack` as a JACK client of a real server (jackd on the dummy
/// driver, started here), recorded by a client that places each cycle by
/// JACK's frame time (`Tests/Tools/jack_stamped_rec.c`).
@Suite struct JackPlaybackServerTests {
    static var ready: Bool { JackLoopback.isInstalled && JackLoopback.canBuildRecorder }
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"
    static let needs = "jackd2, libjack-jackd2-dev and clang are needed: run scripts/setup --test"

    /// Plays `arguments` through `--jack` into `jack_thru` while the stamped
    /// recorder takes `seconds` of its output; with `stall`, the recorder stops
    /// the process whose id is in the pid file (200 ms, 100 ms after click `stall.click`).
    func take(_ loopback: JackLoopback, seconds: Int, arguments: [String], stall: (click: Int, pidOf: (Process) -> Int32)? = nil)
        throws -> (samples: [Float], status: Int32, stderr: String, recorderLog: String) {
        let recorderProgram = try loopback.buildStampedRecorder()
        let file = loopback.home.file("stamped.f32"), pidFile = loopback.home.file("stalled.pid")
        let errors = loopback.home.file("stderr"), recorderLogFile = loopback.home.file("recorder.log")
        let stallArguments = stall.map { [pidFile, "\($0.click)", "200"] } ?? []
        let recorder = try loopback.launch(recorderProgram, ["jack_thru:output_1", "\(seconds)", file] + stallArguments, log: recorderLogFile)
        try loopback.waitForPort("jack_thru:output_1", connectedTo: "stamped:in")
        let metronome = try loopback.launch(metronomeBinary(), ["--jack", "--connect", "jack_thru:input_1", "--no-pendulum"] + arguments,
                                            log: errors)
        if let stall { try "\(stall.pidOf(metronome))".write(toFile: pidFile, atomically: true, encoding: .utf8) }
        metronome.waitUntilExit()
        recorder.waitUntilExit()
        #expect(recorder.terminationStatus == 0)
        let samples = try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (samples, metronome.terminationStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: recorderLogFile, encoding: .utf8)) ?? "")
    }

    /// Every click on its exact frame of JACK's clock, the bell on each bar's
    /// first beat, for the whole run: nothing between the track and the
    /// graph but the port.
    @Test(.enabled(if: ready || required))
    func everyClickIsOnItsExactFrameOfJacksClock() throws {
        try #require(Self.ready, "\(Self.needs)")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), meter: try Meter(parsing: "3/4"), rate: .standard)
        var result = try take(try JackLoopback(), seconds: 11, arguments: ["--bpm", "137", "--meter", "3/4", "--duration", "10",
                                                                          "--beat-sound", beat, "--bell-sound", bell])
        // The machine, not the metronome: a take where the server's callbacks came more than a period late
        // (the metronome reports them as underruns and drops the clicks due) is taken again, twice at most.
        for _ in 0..<2 where result.stderr.contains("underrun") {
            print("retaken: \(result.stderr.split(separator: "\n").last ?? "")")
            result = try take(try JackLoopback(), seconds: 11, arguments: ["--bpm", "137", "--meter", "3/4", "--duration", "10",
                                                                          "--beat-sound", beat, "--bell-sound", bell])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("underrun"), "\(result.stderr)")
        let found = onsets(result.samples)
        let first = try #require(found.first, "nothing recorded")
        expectExactClicks(clicksHeard(found, from: first, on: schedule), 0..<23, on: schedule)  // 10 s at 137 bpm: clicks 0 to 22
    }

    /// The picture follows the frame heard: the cycle's time less the port's
    /// latency (to the system's playback ports), a straight line.
    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func thePictureFollowsTheAudioClockThroughJACK() throws {
        try #require(JackLoopback.isInstalled && TerminalTests.tmuxInstalled, "jackd2 and tmux are needed")
        try RealTimeLoopbackTests.expectThePictureFollowsTheAudioClock(output: ["--jack"])
    }

    /// The keys reach the JACK client's track as they reach ALSA's writer:
    /// five Up keys at 120 bpm give the 125 grid exactly from a beat.
    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func theKeysMoveTheTempoThroughJACK() throws {
        try #require(JackLoopback.isInstalled && TerminalTests.tmuxInstalled, "jackd2 and tmux are needed")
        let loopback = try JackLoopback()
        let trace = loopback.home.file("trace.jsonl")
        let environment = loopback.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        let pane = try TmuxPane(command: "env \(environment) \(metronomeBinary()) --jack --bpm 120 --trace \(trace) 2>/dev/null")
        try pane.waitUntil("the first clicks") { PracticeKeysTests.read(trace).clicks.count >= 2 }
        try PracticeKeysTests.expectFiveUpsGiveA125Grid(pane, trace: trace)
    }

    /// A tempo map with a ramp and a meter change through the JACK client:
    /// every click recorded on JACK's clock where the map's exact grid puts it.
    @Test(.enabled(if: ready || required))
    func aTempoMapIsExactThroughJACK() throws {
        try #require(Self.ready, "\(Self.needs)")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let text = "2 120\n2 120-150\n2 7/8 150\n"
        let map = directory.file("map.txt")
        try text.write(toFile: map, atomically: true, encoding: .utf8)
        let loopback = try JackLoopback()
        let result = try take(loopback, seconds: 12, arguments: ["--tempo-map", map, "--beat-sound", beat, "--bell-sound", bell])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try PlannedRun(.map(try parseMap(text), first: 0, loops: false), rate: 48_000).onsets
        let found = onsets(result.samples)
        let first = try #require(found.first, "nothing recorded")
        #expect(found.map { $0.frame - first.frame } == expected.map(\.frame), "\(found.map { $0.frame - first.frame })")
        #expect(found.map { $0.value < 0 } == expected.map { $0.value < 0 })
    }

    /// No server: one line and 69, and none started.
    @Test(.enabled(if: JackLoopback.isInstalled || required))
    func withoutAServerItIsOneLineAnd69AndNoneIsStarted() throws {
        let server = "metronome-absent-\(getpid())"
        let result = try run(metronomeBinary(), ["--jack", "--duration", "1", "--no-pendulum"], environment: ["JACK_DEFAULT_SERVER": server])
        #expect(result.status == 69)
        #expect(result.standardError == "metronome: no JACK server '\(server)' is running (the metronome never starts one)\n")
        #expect(try run("/usr/bin/pgrep", ["-f", "jackd.*\(server)"]).status != 0)
    }

    /// The server killed while the metronome plays in a terminal: 74, one line, the terminal restored.
    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func aServerThatDiesIsOneLineAnd74WithTheTerminalRestored() throws {
        let loopback = try JackLoopback()
        try expectALostServerEndsInOneLine(device: "jack", output: ["--jack"], says: "metronome: the JACK server shut the client 'metronome' down",
                                           environment: loopback.environment, directory: loopback.home.path, stopServer: loopback.stopServer)
    }

    /// The frames (at 48 kHz) the recorder's "stalled AT MICROSECONDS" line says the server stood still.
    static func stallFrames(_ log: String) -> Int64? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("stalled ") }),
              let microseconds = line.split(separator: " ").last.flatMap({ Int64($0) }) else { return nil }
        return microseconds * 48 / 1_000
    }

    /// jackd stopped for 200 ms, 100 ms after click 4 at 240 bpm: its frame
    /// time stands still while real time goes on. The click due in the stall
    /// is dropped and every later one is where real time puts it: on the
    /// recording (placed by JACK's frame time) the grid after the stall is the
    /// one before it moved earlier by the time lost, and never played late.
    @Test(.enabled(if: ready || required))
    func aStoppedServerDropsTheClickDueAndKeepsRealTime() throws {
        try #require(Self.ready, "\(Self.needs)")
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), rate: .standard)
        try takes(3, "a stopped server") { attempt, last in
            let loopback = try JackLoopback()
            let server = try #require(loopback.serverProcess)
            let result = try take(loopback, seconds: 7, arguments: ["--bpm", "240", "--duration", "6", "--beat-sound", beat, "--bell-sound", bell],
                                  stall: (4, { _ in server.processIdentifier }))
            let found = onsets(result.samples)
            let first = try #require(found.first, "nothing recorded: \(result.stderr)")
            let before = clicksHeard(found, from: first, on: schedule).prefix { $0.click <= 4 }
            // The harness on a loaded machine, not the metronome: the clicks before the stall are off.
            if before.contains(where: { $0.offset != 0 }), !last { return false }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.recorderLog.contains("stalled"), "\(result.recorderLog)")
            #expect(before.map(\.click) == Array(0...4) && before.allSatisfy { $0.offset == 0 }, "\(before)")
            #expect(result.stderr.contains("metronome: 1 underrun in JACK client 'metronome'"), "\(result.stderr)")
            // Click 5, due in the stall, is not where JACK's frame time would have put it.
            #expect(!found.contains { $0.frame == first.frame + schedule.frame(ofClick: 5) }, "\(found.map(\.frame).prefix(12))")
            // After the stall: one grid, the first one less the time lost: the stop (measured
            // by the recorder, 200 ms asked) less the part of a cycle (1024 frames) the server
            // had run before it stopped, and more by the wake's lateness.
            let stopped = try #require(Self.stallFrames(result.recorderLog), "\(result.recorderLog)")
            let after = found.filter { $0.frame > first.frame + schedule.frame(ofClick: 5) - stopped - 2_000 }
            let shift = try #require(after.first.map { first.frame + schedule.frame(ofClick: 6) - $0.frame }, "nothing after the stall")
            print("stopped server: stalled \(stopped) frames, \(shift) lost, attempt \(attempt)")
            #expect(shift >= stopped - 1_024 && shift <= stopped + 4_800, "time lost: \(shift) frames of a \(stopped)-frame stall")
            let clicks = after.map { $0.frame - first.frame + shift }
            #expect(clicks == (6..<Int64(6 + clicks.count)).map { schedule.frame(ofClick: $0) }, "\(clicks)")
            #expect(clicks.count >= 17)
            return true
        }
    }
}
