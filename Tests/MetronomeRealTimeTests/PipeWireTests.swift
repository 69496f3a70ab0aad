import Foundation
import Testing
@testable import MetronomeSupport
@testable import MetronomeTiming
@testable import MetronomePendulum
import MetronomeTestSupport

/// Desktop sound: the metronome at its default settings through a real
/// PipeWire session, by ALSA's `default` device (pipewire-alsa) and by the
/// `pulse` plugin into pipewire-pulse, alone or behind other plugins,
/// recorded on the sink's far side.
@Suite(.serialized) struct PipeWireTests {
    /// `scripts/test` sets this, so a machine without PipeWire fails instead of skipping.
    static let required = ProcessInfo.processInfo.environment["METRONOME_REQUIRE_LOOPBACK"] == "1"
    static let available = PipeWireSession.isInstalled || required

    /// Chains of ALSA plugins in front of the servers' plugins, as a user's
    /// `.asoundrc` writes them (`plug:pipewire` and `plug:pulse` need none): the
    /// server behind each is found, and the device is a server's.
    static let chains = """
        pcm.ratepipewire { type rate; slave { pcm "pipewire"; rate 48000 } }
        pcm.routepulse { type route; slave { pcm "plug:pulse"; channels 2 } ttable.0.0 1 ttable.0.1 1 }
        """

    /// The server behind each device the tests play on.
    static func server(behind device: String) -> String {
        device.hasSuffix("pulse") ? "PulseAudio" : "PipeWire"
    }

    /// 20 s at 120 bpm, nothing but the device named: every interval the exact grid's, no underrun.
    /// A run that met an underrun (the metronome says so) or whose recorder missed a cycle (it
    /// says so; the cycle is silence in the recording, and a click in it would be lost) had a
    /// machine too loaded to keep PipeWire's time, which is not real-time here: it is tried
    /// again, four times at most (`takes`), and the last try must be exact. Behind a chain of plugins
    /// (`chains`) the same: a server's latency and a server's choice of priority.
    @Test(.enabled(if: available), arguments: ["default", "pulse", "plug:pipewire", "plug:pulse", "ratepipewire", "routepulse"])
    func theDefaultsAreExactForTwentySeconds(device: String) throws {
        try #require(PipeWireSession.isInstalled, "PipeWire is needed: run scripts/setup --test")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "120"), rate: .standard)
        let server = Self.server(behind: device)
        try takes(5, "PipeWire's defaults through \(device)") { _, last in
            let session = try PipeWireSession()
            let directory = TemporaryDirectory()
            let (beat, bell) = try writeImpulseSoundFiles(in: directory)
            let file = session.file("recording.wav")
            let recorder = try session.startRecording(to: file)
            var arguments = ["--bpm", "120", "--duration", "20", "--no-pendulum", "--verbose", "--beat-sound", beat, "--bell-sound", bell]
            if device != "default" { arguments += ["--device", device] }
            try Self.chains.write(toFile: session.file(".asoundrc"), atomically: true, encoding: .utf8)
            let played = try run(metronomeBinary(), arguments, environment: session.environment.merging(["HOME": session.home]) { $1 })
            let recording = try session.finish(recorder, file: file)
            // A rate plugin resamples (1:1 here) through a filter: each impulse comes out a short burst, its peak where the impulse was.
            let found = device.hasPrefix("rate") ? Self.peaks(recording) : onsets(recording)
            let underran = played.standardError.contains("underrun")
            let recorderMissed = session.framesTheRecorderMissed(file: file)
            // Or a click lost with nothing said: the pulse plugin drops what a stalled machine held too long.
            let disturbance = underran ? "an underrun"
                : recorderMissed != 0 ? "the recorder's lost frames: \(recorderMissed) (-1: not said)"
                : found.count != 40 ? "\(found.count) clicks of 40 found" : nil
            if !last, let disturbance {
                print("PipeWire's defaults through \(device): \(disturbance)")
                return false
            }
            #expect(played.status == 0, "\(played.standardError)")
            // No underrun, no warning: only --verbose's word on the audio thread's priority, which is
            // real time in front of PipeWire (its own threads are, above ours; a loaded machine must not
            // delay the writer past the buffer) and not asked for in front of the pulse plugin,
            // wherever in the chain it stands.
            #expect(played.standardError == (server == "PipeWire" ? "metronome: audio thread: real-time priority 20 (SCHED_FIFO), memory locked\n" : ""),
                    "\(played.standardError)")
            #expect(found.count == 40)
            // A sound server's default, as granted: four 1024-frame periods.
            #expect(played.standardOutput.hasPrefix("device '\(device)': buffer 4096 frames (85.3 ms), periods of 1024 at 48000 Hz, into \(server)\n"),
                    "\(played.standardOutput.prefix(200))")
            guard let first = found.first else { return true }
            for (click, onset) in found.enumerated() {
                #expect(onset.frame - first.frame == schedule.frame(ofClick: Int64(click)), "click \(click)")
                #expect((onset.value < 0) == (click % 4 == 0), "click \(click)")
            }
            return true
        }
    }

    /// The loudest sample of each burst of nonzero ones (bursts apart by 1000 silent frames or more), with its frame.
    static func peaks(_ samples: [Float]) -> [(frame: Int64, value: Float)] {
        var peaks: [(frame: Int64, value: Float)] = []
        var last = Int64.min / 2
        for onset in onsets(samples) {
            if onset.frame - last >= 1_000 {
                peaks.append(onset)
            } else if abs(onset.value) > abs(peaks[peaks.count - 1].value) {
                peaks[peaks.count - 1] = onset
            }
            last = onset.frame
        }
        return peaks
    }

    /// SIGSTOP for 400 ms, just after click 4 is heard at 240 bpm: these
    /// plugins' servers play on and the buffer runs dry (the write after
    /// reports an underrun, or through pulse at times the stream only waits
    /// for more). Click 5, due in the gap, is dropped, and so may the next
    /// one or two, due while the restarted stream is measured; every other
    /// click lands on the original grid within 1 ms. A take the machine
    /// disturbed besides the fault (the recorder missed cycles, a click
    /// before the fault was not heard on the grid, or the metronome met a
    /// second underrun) is taken again, twice at most, and the last take
    /// must pass: PipeWire's time is not real-time here, and a clean-clone
    /// CI run once met all three on a loaded machine.
    @Test(.enabled(if: available), arguments: ["default", "pulse"])
    func aStoppedProcessDropsTheClicksDueAndComesBackOnTheGrid(device: String) throws {
        try #require(PipeWireSession.isInstalled, "PipeWire is needed: run scripts/setup --test")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), rate: .standard)
        for attempt in 1...3 {
            let session = try PipeWireSession()
            let (metronome, recorder, file, rendered) = try Self.startStallTake(["--device", device], in: session, schedule: schedule)
            let clock = MonotonicClock()
            // The fault itself: 150 ms after click 4 was seen rendered (about when it is heard), for 400 ms.
            clock.sleep(until: MonotonicInstant(nanoseconds: rendered + 150_000_000))
            kill(metronome.processIdentifier, SIGSTOP)
            clock.sleep(until: MonotonicInstant(nanoseconds: rendered + 550_000_000))
            kill(metronome.processIdentifier, SIGCONT)
            metronome.waitUntilExit()
            let found = onsets(try session.finish(recorder, file: file))
            let stderr = session.log("stderr")
            let first = found.first
            let heard = first.map { clicksHeard(found, from: $0, on: schedule) } ?? []
            let beforeTheFault = heard.filter { $0.click <= 4 }
            let disturbed = session.framesTheRecorderMissed(file: file) != 0
                || beforeTheFault.map(\.click) != Array(0...4) || beforeTheFault.contains { $0.offset != 0 }
                || (stderr.contains("underruns on") && !stderr.contains("metronome: 1 underrun on"))
            if disturbed, attempt < 3 { continue }
            #expect(metronome.terminationStatus == 0, "\(stderr)")
            #expect(stderr.contains("metronome: 1 underrun on '\(device)'"), "\(stderr)")
            guard first != nil else {
                Issue.record("nothing recorded: \(stderr)")
                return
            }
            let clicks = heard.map(\.click)
            let dropped = Array(Set(0...23).subtracting(clicks)).sorted()
            #expect(clicks == clicks.sorted() && Set(clicks).count == clicks.count, "\(heard)")
            #expect(dropped.first == 5 && dropped.count <= 3 && dropped == Array(5..<5 + Int64(dropped.count)), "dropped \(dropped): \(heard)")
            for click in beforeTheFault { #expect(click.offset == 0, "\(click)") }
            // Every click after the stall on the original grid within 1 ms. Known intermittent through
            // pulse (issue 15, open): once in a clean-clone CI run the first click after the gap came
            // 3360 frames (70 ms) late, the rest on the grid; it did not recur in four runs alone.
            let afterTheGap = heard.filter { $0.click > 5 }
            if device == "pulse" {
                withKnownIssue("through pulse a click just after the gap is at times heard late (issue 15)", isIntermittent: true) {
                    for click in afterTheGap { #expect(abs(click.offset) <= 48, "\(click)") }
                }
                // Never more than the first after the gap: every later click is on the grid.
                for click in afterTheGap.dropFirst() { #expect(abs(click.offset) <= 48, "\(click)") }
            } else {
                for click in afterTheGap { #expect(abs(click.offset) <= 48, "\(click)") }
            }
            for click in heard { #expect(click.bell == schedule.isBell(click: click.click), "\(click)") }
            return
        }
    }

    /// PipeWire's graph stopped for 100 ms (the server under SIGSTOP) 150 ms
    /// after click 4 is rendered at 240 bpm, while the metronome plays through
    /// `plug:pipewire`: the buffer runs dry, and every click heard lands on the
    /// original grid within 1 ms; only clicks due in the gap, or while the
    /// restarted stream is measured, are dropped. Without the server found
    /// behind `plug` (a card's 512-frame buffer), every later click was 771 to
    /// 1461 frames off. A take whose recorder missed cycles besides the stall's
    /// (a loaded machine), or in which a click landed off, is taken again, twice
    /// at most: once in a CI rehearsal every click after the stall landed 56
    /// frames off, and the take after it on the grid.
    @Test(.enabled(if: available))
    func aStalledGraphBehindPlugLeavesEveryLaterClickOnTheGrid() throws {
        try #require(PipeWireSession.isInstalled, "PipeWire is needed: run scripts/setup --test")
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "240"), rate: .standard)
        try takes(3, "a stalled graph behind plug") { _, last in
            let session = try PipeWireSession()
            let (metronome, file, found) = try Self.takeWithTheServerPaused(milliseconds: 100, ["--device", "plug:pipewire"], in: session,
                                                                             schedule: schedule)
            if session.gapsTheRecorderMissed(file: file) > 1, !last { return false }
            let stderr = session.log("stderr")
            #expect(metronome.terminationStatus == 0, "\(stderr)")
            let first = try #require(found.first, "nothing recorded: \(stderr)")
            let heard = clicksHeard(found, from: first, on: schedule)
            let clicks = heard.map(\.click)
            let dropped = Array(Set(0...23).subtracting(clicks)).sorted()
            #expect(clicks == clicks.sorted() && Set(clicks).count == clicks.count, "\(heard)")
            #expect(dropped.count <= 3 && dropped.allSatisfy { $0 >= 5 }, "dropped \(dropped): \(heard)")
            let off = heard.filter { abs($0.offset) > 48 }
            #expect(off.isEmpty, "\(off.count) of \(heard.count) clicks more than 1 ms off: \(off); \(stderr)")
            for click in heard { #expect(click.bell == schedule.isBell(click: click.click), "\(click)") }
            return true
        }
    }

    /// A stall's take: 6 s at 240 bpm with `options` (where it plays: `--device D`, or `--jack`
    /// with `underJack`, under pw-jack), its stderr logged as "stderr", recorded on the sink's far
    /// side and traced; returned once click 4 is rendered, with the instant it was first seen so.
    static func startStallTake(_ options: [String], underJack: Bool = false, in session: PipeWireSession, schedule: ClickSchedule) throws
        -> (metronome: Process, recorder: Process, file: String, rendered: Int64) {
        let directory = TemporaryDirectory()
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        let file = session.file("recording.wav"), trace = session.file("trace.jsonl")
        let recorder = try session.startRecording(to: file)
        let arguments = options + ["--bpm", "240", "--duration", "6", "--no-pendulum", "--trace", trace, "--beat-sound", beat, "--bell-sound", bell]
        let metronome = underJack ? try session.startUnderJack(metronomeBinary(), arguments, log: "stderr")
                                  : try session.start(metronomeBinary(), arguments, log: "stderr")
        // The sounds are read before the first click is rendered: the directory may go after.
        let rendered = try instantRendered(click: 4, on: schedule, trace: trace, session: session)
        return (metronome, recorder, file, rendered)
    }

    /// A stall's take (`startStallTake`) whose server is paused (SIGSTOP) for `milliseconds`, 150 ms
    /// after click 4 is rendered; returned once the metronome ended, with the onsets recorded.
    static func takeWithTheServerPaused(milliseconds: UInt32, _ options: [String], underJack: Bool = false, in session: PipeWireSession,
                                        schedule: ClickSchedule) throws -> (metronome: Process, file: String, found: [(frame: Int64, value: Float)]) {
        let (metronome, recorder, file, rendered) = try startStallTake(options, underJack: underJack, in: session, schedule: schedule)
        MonotonicClock().sleep(until: MonotonicInstant(nanoseconds: rendered + 150_000_000))
        session.pauseServer(milliseconds: milliseconds)
        metronome.waitUntilExit()
        return (metronome, file, onsets(try session.finish(recorder, file: file)))
    }

    /// When the trace first holds click `click`: it is there once rendered, about
    /// a buffer and the server's latency before it is heard.
    static func instantRendered(click: Int64, on schedule: ClickSchedule, trace: String, session: PipeWireSession) throws -> Int64 {
        let clock = MonotonicClock()
        var rendered: Int64?
        waitUntil(seconds: 10, every: .milliseconds(2)) {
            if ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").contains("\"frame\":\(schedule.frame(ofClick: click))") {
                rendered = clock.now().nanoseconds
            }
            return rendered != nil
        }
        if let rendered { return rendered }
        throw PipeWireSession.SessionError.notReady("click \(click) never rendered: \(session.log("stderr"))")
    }

    /// The picture through each plugin: every drawn frame shows the eased angle
    /// of the frame it says is heard, at 50 fps or more, and that audio clock is
    /// a straight line in time within 5 ms (the pulse plugin's reports are coarse).
    /// A take that misses, as beside the other tests on a loaded machine, is taken again.
    @Test(.enabled(if: (PipeWireSession.isInstalled && TerminalTests.tmuxInstalled) || required), arguments: ["default", "pulse"])
    func thePictureFollowsTheHeardFrame(device: String) throws {
        try #require(PipeWireSession.isInstalled && TerminalTests.tmuxInstalled, "PipeWire and tmux are needed")
        let session = try PipeWireSession()
        let schedule = ClickSchedule(tempo: try Tempo(parsing: "137"), rate: .standard)
        let motion = PendulumMotion(schedule: schedule)
        let environment = session.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        try takes(3, "the picture through \(device)") { attempt, _ in
            let trace = session.file("trace\(attempt).jsonl"), stderr = "stderr\(attempt)"
            let pane = try TmuxPane(command: "env \(environment) \(metronomeBinary()) --device \(device) --bpm 137 --duration 6 --trace \(trace) 2>\(session.file(stderr))")
            let outcome = try pane.outcome(seconds: 30)
            #expect(outcome.status == 0, "\(session.log(stderr))")
            let frames = try drawnFrames(trace)
            for frame in frames { #expect(abs(frame.angle - motion.angle(atFrame: Double(frame.audio))) < 1e-9) }
            let playing = frames.filter { $0.audio > 0 && $0.audio < 6 * 48_000 - 8_192 }
            let seconds = try #require(playing.last).time - playing[0].time
            #expect(seconds > 4)
            #expect(Double(playing.count) / seconds >= 50)
            let line = try #require(AudioClockLine(playing))
            #expect(abs(line.slope - 48_000) < 48 * 5, "slope \(line.slope)")
            let worst = line.worst(playing)
            #expect(worst < 0.005 * 48_000, "worst deviation \(worst) frames")
            return true
        }
    }

    /// A session's bus listens in the session's own folder, and the session ends with nothing of it
    /// left: under /tmp, the bus it kills would leave its socket behind, one for each session.
    @Test(.enabled(if: available))
    func aSessionLeavesNothingBehind() throws {
        try #require(PipeWireSession.isInstalled, "PipeWire is needed: run scripts/setup --test")
        var session: PipeWireSession? = try PipeWireSession()
        let home = session!.home
        let address = session!.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        #expect(address.hasPrefix("unix:path=\(home)/"), "\(address)")
        let socket = address.dropFirst("unix:path=".count).prefix { $0 != "," }
        #expect(FileManager.default.fileExists(atPath: String(socket)))
        session = nil
        #expect(!FileManager.default.fileExists(atPath: String(socket)))
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    /// PipeWire killed mid-run: one line naming the device and the error, exit 74 within 5 s, the terminal restored.
    @Test(.enabled(if: (PipeWireSession.isInstalled && TerminalTests.tmuxInstalled) || required), arguments: ["default", "pulse"])
    func aLostServerIsOneLineAndExit74(device: String) throws {
        try #require(PipeWireSession.isInstalled && TerminalTests.tmuxInstalled, "PipeWire and tmux are needed")
        let session = try PipeWireSession()
        try expectALostServerEndsInOneLine(device: device, environment: session.environment,
                                           directory: session.home, stopServer: session.killServer)
    }
}
