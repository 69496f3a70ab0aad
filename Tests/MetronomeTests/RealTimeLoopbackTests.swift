import Foundation
@testable import Metronome
import Testing

/// A JACK server on the dummy driver (real time, no sound card), `jack_thru`
/// passing audio through, and ALSA's jack plugin as the metronome's device:
/// the real ALSA playback path, recorded by `jack_rec` on the far side.
final class JackLoopback {
    static let tools = ["/usr/bin/jackd", "/usr/bin/jack_thru", "/usr/bin/jack_rec", "/usr/bin/jack_lsp", "/usr/bin/jack_wait"]
    static let plugin = "/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_jack.so"
    static var isInstalled: Bool {
        (tools + [plugin]).allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    let home = TemporaryDirectory()
    let server = "metronome-test-\(getpid())"
    let environment: [String: String]
    private var processes: [Process] = []
    let serverLog: String

    init() throws {
        environment = ["HOME": home.path, "JACK_DEFAULT_SERVER": server, "JACK_NO_AUDIO_RESERVATION": "1"]
        serverLog = home.file("jackd.log")
        try """
            pcm.loopback {
                type jack
                playback_ports {
                    0 jack_thru:input_1
                }
            }
            """.write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
        Self.removeStaleRegistrations()
        try start("/usr/bin/jackd", ["-n", server, "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "1024"], log: serverLog)
        let ready = try run("/usr/bin/jack_wait", ["-w", "-t", "10"], environment: environment)
        guard ready.status == 0 else { throw LoopbackError.notReady("jackd did not start: \(try log())") }
        try start("/usr/bin/jack_thru", [], log: home.file("thru.log"))
        try waitForPort("jack_thru:output_1")
    }

    enum LoopbackError: Error { case notReady(String) }

    /// Servers killed without cleanup leave `jack*` entries in POSIX shared
    /// memory that stop new servers; remove them while no jackd runs.
    static func removeStaleRegistrations() {
        let running = (try? run("/usr/bin/pgrep", ["-x", "jackd"]))?.status == 0
        guard !running, let names = try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm") else { return }
        for name in names where name.hasPrefix("jack") {
            try? FileManager.default.removeItem(atPath: "/dev/shm/\(name)")
        }
    }

    private func start(_ executable: String, _ arguments: [String], log: String) throws {
        processes.append(try launch(executable, arguments, log: log))
    }

    /// Starts a program in the server's environment, its output to `log`.
    func launch(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        try launchLogged(executable, arguments, environment: environment, log: log)
    }

    /// Polls the server's port list (at most 10 s) until `port` exists, or,
    /// with `connectedTo`, until it is connected to that port.
    func waitForPort(_ port: String, connectedTo peer: String? = nil) throws {
        for _ in 0..<200 {
            let listing = try run("/usr/bin/jack_lsp", peer == nil ? [] : ["-c"], environment: environment).standardOutput
            let lines = listing.split(separator: "\n").map(String.init)
            if let peer {
                // `jack_lsp -c` lists each port, then its connections indented.
                if let index = lines.firstIndex(of: port),
                   lines[(index + 1)...].prefix(while: { $0.hasPrefix(" ") }).contains(where: { $0.trimmingCharacters(in: .whitespaces) == peer }) {
                    return
                }
            } else if lines.contains(port) {
                return
            }
            usleep(50_000)
        }
        throw LoopbackError.notReady("port \(port) never appeared or connected")
    }

    /// Records `jack_thru`'s output for `seconds` while `body` runs; returns the recording.
    func record(seconds: Int, while body: () throws -> Void) throws -> [Float] {
        let file = home.file("recording.wav")
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/jack_rec")
        recorder.arguments = ["-f", file, "-d", "\(seconds)", "-b", "16", "jack_thru:output_1"]
        recorder.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = FileHandle.nullDevice
        try recorder.run()
        try waitForPort("jack_thru:output_1", connectedTo: "jackrec:input1")
        try body()
        recorder.waitUntilExit()
        return try readSoundFile(file).samples
    }

    /// Builds `Tests/Tools/jack_stamped_rec.c` (a recorder that places each
    /// cycle by JACK's frame time, and can stop a process) with the Swift
    /// toolchain's clang; returns the program's path.
    func buildStampedRecorder() throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/jack_stamped_rec.c").path
        let program = home.file("jack_stamped_rec")
        let compiler = try #require(Self.compiler, "no clang or cc on PATH")
        let built = try run(compiler, ["-O2", "-o", program, source, "-ljack"])
        guard built.status == 0 else { throw LoopbackError.notReady("cannot build the recorder: \(built.standardError)") }
        return program
    }

    static var compiler: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for name in ["clang", "cc"] {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    /// Whether the recorder can be built: JACK's headers and a C compiler.
    static var canBuildRecorder: Bool { FileManager.default.fileExists(atPath: "/usr/include/jack/jack.h") && compiler != nil }

    /// Stops the JACK server, as when the sound server goes away mid-run.
    func stopServer() {
        guard let server = processes.first, server.isRunning else { return }
        server.terminate()
        server.waitUntilExit()
    }

    func log() throws -> String { (try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "" }

    /// Whether jackd itself reported an xrun: a loaded machine, not the metronome.
    var serverHadXrun: Bool { ((try? log()) ?? "").lowercased().contains("xrun") }

    deinit {
        // jack_thru ignores SIGTERM: ask politely, then insist after 2 s.
        for process in processes.reversed() where process.isRunning {
            process.terminate()
            for _ in 0..<40 where process.isRunning { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        Self.removeStaleRegistrations()
    }
}

@Suite(.serialized) struct RealTimeLoopbackTests {
    /// `scripts/test` sets this, so a machine without JACK fails instead of skipping.
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"

    /// The capture side and the practice inspector (`CaptureLoopbackTests`), in this serialized suite.
    @Test(.enabled(if: (JackLoopback.isInstalled && JackLoopback.canBuildRecorder && TerminalTests.tmuxInstalled) || required))
    func captureThroughTheJackPlugin() throws {
        try CaptureLoopbackTests().captureThroughTheJackPlugin()
    }

    @Test(.enabled(if: JackLoopback.isInstalled || required))
    func liveClicksThroughALSAKeepTheExactGrid() throws {
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
                result = try run(metronomeBinary(), ["--device", "loopback", "--bpm", "137", "--duration", "\(seconds)",
                                                     "--no-pendulum", "--verbose", "--beat-sound", beat, "--bell-sound", bell],
                                 environment: loopback.environment)
            }
            if loopback.serverHadXrun, attempt < 3 { continue }  // the harness, not the metronome
            let played = try #require(result)
            #expect(played.status == 0, "\(played.standardError)")
            // No underrun reported, and even --verbose says nothing of real time: in front of JACK
            // (whose server may have none, as this one) the writer does not ask for it.
            #expect(played.standardError.isEmpty, "\(played.standardError)")
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

    @Test(.enabled(if: (JackLoopback.isInstalled && TerminalTests.tmuxInstalled) || required))
    func thePictureFollowsTheAudioClockThroughALSA() throws {
        try #require(JackLoopback.isInstalled && TerminalTests.tmuxInstalled, "jackd2, libasound2-plugins and tmux are needed")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: .standard)
        let motion = PendulumMotion(schedule: schedule)
        for attempt in 1...3 {
            let loopback = try JackLoopback()
            let trace = loopback.home.file("trace.jsonl")
            let environment = loopback.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            let pane = try TmuxPane(command: "env \(environment) \(metronomeBinary()) --device loopback --bpm 137 --duration 6 --trace \(trace) 2>\(loopback.home.file("stderr"))")
            let outcome = try pane.outcome(seconds: 30)
            if loopback.serverHadXrun, attempt < 3 { continue }
            #expect(outcome.status == 0)

            let objects = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.first?["type"] as? String == "tempo" && objects.first?["bpm"] as? String == "137")
            let clicks = objects.filter { $0["type"] as? String == "click" }.map { ($0["frame"] as! NSNumber).int64Value }
            #expect(clicks == (0..<schedule.firstClick(atOrAfter: 6 * 48_000)).map { schedule.frame(ofClick: $0) })

            let frames = objects.filter { $0["type"] as? String == "frame" }.map {
                (time: ($0["time"] as! NSNumber).doubleValue, audio: ($0["audioFrame"] as! NSNumber).int64Value,
                 angle: ($0["angle"] as! NSNumber).doubleValue)
            }
            // Every picture shows the angle of the audio frame it says it shows.
            for frame in frames {
                #expect(abs(frame.angle - motion.angle(atFrame: Double(frame.audio))) < 1e-9)
            }
            // While sound plays (not before the first frame is heard, not after the last):
            let playing = frames.filter { $0.audio > 0 && $0.audio < 6 * 48_000 - 2_048 }
            let seconds = try #require(playing.last).time - playing[0].time
            #expect(seconds > 4.5)
            #expect(Double(playing.count) / seconds >= 50)
            // ...the audio clock is a straight line in time: fit it, and no frame is off by 3 ms.
            let n = Double(playing.count)
            let meanT = playing.map(\.time).reduce(0, +) / n, meanA = playing.map { Double($0.audio) }.reduce(0, +) / n
            let slope = playing.map { ($0.time - meanT) * (Double($0.audio) - meanA) }.reduce(0, +)
                / playing.map { ($0.time - meanT) * ($0.time - meanT) }.reduce(0, +)
            #expect(abs(slope - 48_000) < 48)  // within 0.1 % of the rate
            let worst = playing.map { abs(Double($0.audio) - (meanA + slope * ($0.time - meanT))) }.max() ?? .infinity
            #expect(worst < 0.003 * 48_000, "worst deviation \(worst) frames")
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

/// A sound server stopped while the metronome plays in a terminal: within
/// 5 s, exit 74 with one line naming the device, the terminal restored and the picture gone.
func expectALostServerEndsInOneLine(device: String, environment: [String: String], directory: String,
                                    stopServer: () -> Void) throws {
    let trace = directory + "/trace.jsonl", errors = directory + "/stderr"
    let variables = environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
    let pane = try TmuxPane(command: "env \(variables) \(metronomeBinary()) --device \(device) --bpm 137 --trace \(trace) 2>\(errors)")
    // Playing: the picture is up and clicks are being started.
    try pane.waitUntil("clicks through \(device)") {
        try (try? String(contentsOfFile: trace, encoding: .utf8))?.contains("\"click\"") == true && pane.capture().contains("q quit")
    }
    let stopped = Date()
    stopServer()
    let outcome = try pane.outcome(seconds: 10)
    let took = Date().timeIntervalSince(stopped)
    #expect(outcome.status == 74)
    #expect(took < 5, "took \(took) s to notice")
    let lines = try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1, "\(lines)")
    #expect(lines.first?.hasPrefix("metronome: audio device '\(device)' failed: ") == true, "\(lines)")
    let flags = outcome.stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
    #expect(flags.contains("icanon") && flags.contains("echo"))
    #expect(!(try pane.capture()).contains("q quit"))
}
