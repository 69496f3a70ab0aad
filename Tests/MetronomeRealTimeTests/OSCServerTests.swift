import Foundation
import Testing
@testable import MetronomeTiming
import MetronomeOSC
import MetronomeTestSupport

/// `--osc PORT` in a run with no sound card (paced by the clock, 48 kHz),
/// driven by python-osc (`Tests/Tools/osc_probe.py`, an OSC implementation
/// independent of our liblo): klick's namespace, read back through `--trace`.
@Suite(.serialized) struct OSCServerTests {
    static let probe = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/osc_probe.py").path
    /// python-osc for Debian's Python (scripts/setup --test installs it from PyPI).
    static let available = (try? run("/usr/bin/python3", ["-c", "import pythonosc"]).status) == 0
    static let needs = "python-osc is needed: run scripts/setup --test"

    /// A metronome listening for OSC, tracing: ended when the test lets go of it.
    final class Run {
        let port: Int, process: Process, trace: String, log: String
        private let directory: TemporaryDirectory

        /// Started on a loopback port that was free a moment ago; returns once it clicks.
        init(_ arguments: [String], quiet: Bool = true) throws {
            let directory = TemporaryDirectory(), trace = directory.file("trace.jsonl")
            self.directory = directory
            self.trace = trace
            port = try OSCSocket(host: "127.0.0.1", port: 0).port
            log = directory.file("metronome.log")
            process = try launchLogged(metronomeBinary(), ["--osc", String(port), "--no-pendulum", "--trace", trace] + (quiet ? ["--quiet"] : []) + arguments,
                                       environment: ["ALSA_CONFIG_PATH": "/nonexistent"], log: log)
            #expect(waitUntil(seconds: 10, every: .milliseconds(20)) { PracticeKeysTests.read(trace).clicks.count >= 2 }, "no clicks")
        }

        /// What it said but that there is no sound card here.
        var saidMore: [Substring] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { !$0.hasPrefix("metronome: warning: cannot open audio device") }
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// Sends `path` with `arguments` (TYPE:VALUE) to `port`; with `ask`, the message that came back.
    @discardableResult
    static func send(_ port: Int, _ path: String, _ arguments: [String] = [], ask: Bool = false, replyTo: Bool = false,
                     portOnly: Bool = false) throws -> String? {
        let flags = replyTo ? [portOnly ? "--reply-to-port" : "--reply-to"] : []
        let result = try run("/usr/bin/python3", [probe, ask ? "ask" : "send", String(port), path] + arguments + flags)
        return result.status == 0 ? result.standardOutput.trimmingCharacters(in: .newlines) : nil
    }

    /// `/klick/ping` answers `/klick/pong`, no arguments, to the sender's port, or to the `,s` return address given.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aPingIsAPongToTheSenderOrTheReturnAddress() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "240"]), port = run.port
        #expect(try Self.send(port, "/klick/ping", ask: true) == #"["/klick/pong", [], "sender"]"#)
        #expect(try Self.send(port, "/klick/ping", ask: true, replyTo: true) == #"["/klick/pong", [], "reply-to"]"#)
        #expect(try Self.send(port, "/klick/ping", ask: true, replyTo: true, portOnly: true) == #"["/klick/pong", [], "reply-to"]"#)
        // Refused, nothing back (and nothing printed by liblo): a return address that is none, and an
        // argument that is not a string. Messages are taken in order: a refused ping is one whose pong
        // does not come back before the answer to the query sent behind it.
        for ping in [["/klick/ping", "s:osc:"], ["/klick/ping", "i:3"]] {
            let replies = try Self.exchange(port, expecting: 2, [ping, ["/klick/metro/query"]]).replies
            #expect(replies.map(\.shape) == Self.metroQueryAnswer, "\(ping): \(replies)")
        }
        #expect(run.saidMore.isEmpty, "\(run.saidMore)")
    }

    /// `/klick/simple/set_tempo ,f 150` at 120 bpm: a tempo event at 150 on a
    /// beat of the 120 grid and from it the 150 grid exactly; `,i 90` is taken
    /// as klick takes it; `,s` is refused and changes nothing.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aTempoSetOverOSCIsATempoEventAndTheGridFromIt() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "120"]), port = run.port
        try Self.send(port, "/klick/simple/set_tempo", ["f:150"])
        var change: PracticeKeysTests.TempoEvent?
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) {
            let (clicks, tempi) = PracticeKeysTests.read(run.trace)
            change = tempi.first { $0.bpm == "150" }
            return change.map { event in clicks.filter { $0.frame >= event.frame }.count >= 7 } ?? false
        }, "no tempo event at 150 and clicks after it")
        try Self.send(port, "/klick/simple/set_tempo", ["s:fast"])
        try Self.send(port, "/klick/simple/set_tempo", ["i:90"])
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) { PracticeKeysTests.read(run.trace).tempi.contains { $0.bpm == "90" } })
        let (clicks, tempi) = PracticeKeysTests.read(run.trace)
        let event = try #require(change)
        #expect(tempi.map(\.bpm) == ["120", "150", "90"], "\(tempi.map(\.bpm))")
        #expect(event.frame % 24_000 == 0)
        PracticeKeysTests.expectGrid(clicks.filter { $0.frame < tempi[2].frame }, from: event.frame, tempo: Tempo(bpm: 150)!)
    }

    /// `/klick/quit` ends the run as if it had finished: 0. `/klick/quit ,i 1` is no quit.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aQuitEndsTheRunWithZeroAndAQuitWithAnArgumentIsNone() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "240"]), port = run.port
        try Self.send(port, "/klick/quit", ["i:1"])
        // Messages are taken in order: once the ping behind it is answered, the quit with an argument was refused.
        #expect(try Self.send(port, "/klick/ping", ask: true) != nil)
        #expect(run.process.isRunning)
        try Self.send(port, "/klick/quit")
        #expect(waitUntil(seconds: 5, every: .milliseconds(20)) { !run.process.isRunning }, "still running after /klick/quit")
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .exit && run.process.terminationStatus == 0)
        // Nothing said but that there is no sound card here.
        #expect(run.saidMore.isEmpty, "\(run.saidMore)")
    }

    /// A port in use is one line and 69, before anything plays; a host that is
    /// no address, a port out of range and `--osc` with `--output` are 64.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aPortInUseIsOneLineAnd69AndBadOptionsAre64() throws {
        let held = try OSCSocket(host: "127.0.0.1", port: 0)
        let environment = ["ALSA_CONFIG_PATH": "/nonexistent"]
        let inUse = try run(metronomeBinary(), ["--osc", String(held.port), "--no-pendulum", "--duration", "1"], environment: environment)
        #expect(inUse.status == 69)
        #expect(inUse.standardError == "metronome: OSC port \(held.port) on 127.0.0.1 is in use\n")
        let cases: [([String], String)] = [
            (["--osc", "9000", "--osc-host", "stage"], "metronome: --osc-host 'stage' is no numeric address (127.0.0.1, ::1, 0.0.0.0)\n"),
            (["--osc", "70000"], "metronome: --osc 70000 is no port: one from 1 to 65535\n"),
            (["--osc-host", "127.0.0.1"], "metronome: --osc-host needs --osc PORT\n"),
            (["--osc-allow-files"], "metronome: --osc-allow-files needs --osc PORT\n"),
            (["--osc-tcp"], "metronome: --osc-tcp needs --osc PORT\n"),
            (["--osc", "9000", "--output", "/tmp/never.wav"], "metronome: --osc does not mix with --output: it controls a run that plays live\n"),
        ]
        for (arguments, line) in cases {
            let result = try run(metronomeBinary(), arguments + ["--no-pendulum", "--duration", "1"], environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == line, "\(arguments)")
        }
    }

    /// A message that came back: its path and its arguments as (type tag, value).
    struct Reply: Equatable, CustomStringConvertible {
        let path: String
        let arguments: [Argument]
        struct Argument: Equatable {
            let type: String
            let value: String
        }

        /// Its path and type tags alone: `/klick/simple/meter ,ii`.
        var shape: String { "\(path) ,\(arguments.map(\.type).joined())" }
        var description: String { "\(path) \(arguments.map { "\($0.type):\($0.value)" }.joined(separator: " "))" }
        /// The first argument as a number.
        var number: Double? { arguments.first.flatMap { Double($0.value) } }
    }

    /// What `/klick/metro/query` answers, as shapes: klick's two messages of the metronome part.
    static let metroQueryAnswer = ["/klick/metro/type ,s", "/klick/metro/active ,i"]

    /// Sends `messages` (each a path, then TYPE:VALUE arguments) in turn from one socket with
    /// python-osc; the first `count` messages that came back to it, and whether all `count` came within 5 s.
    /// Over TCP with `framing` (python-osc's TCP client, "1.0" or "1.1"), on one connection, what comes back on it.
    static func exchange(_ port: Int, expecting count: Int, _ messages: [[String]], overTCP framing: String? = nil) throws -> (replies: [Reply], complete: Bool) {
        let encoded = try messages.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let mode = framing.map { ["tcp", String(port), $0] } ?? ["exchange", String(port)]
        let result = try run("/usr/bin/python3", [probe] + mode + [String(count)] + encoded)
        let replies = result.standardOutput.split(separator: "\n").compactMap { line -> Reply? in
            guard let array = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], array.count == 2,
                  let path = array[0] as? String, let arguments = array[1] as? [[Any]] else { return nil }
            return Reply(path: path, arguments: arguments.map { pair in
                Reply.Argument(type: pair.first as? String ?? "?", value: pair.count > 1 ? "\(pair[1])" : "")
            })
        }
        return (replies, result.status == 0)
    }

    /// Debian's klick 0.12.2, klick's own OSC server, on a JACK dummy server.
    static let klickAvailable = available && FileManager.default.isExecutableFile(atPath: "/usr/bin/klick") && JackLoopback.isInstalled

    /// `/klick/query` answers what klick 0.12.2 answers, message for message in
    /// its order and types (asked of Debian's klick itself, `klick -o PORT 120`
    /// on a JACK dummy server), with this run's values: 120 bpm, 4/4, playing,
    /// and klick's for sounds from files (`,i -2`, where its manual names a `,ss` it never sends).
    @Test(.enabled(if: klickAvailable || RealTimeLoopbackTests.required))
    func aQueryAnswersKlicksMessagesInKlicksTypes() throws {
        try #require(Self.klickAvailable, "python-osc, klick and jackd2 are needed: run scripts/setup --test")
        let server = try JackLoopback()
        let klickPort = try OSCSocket(host: "127.0.0.1", port: 0).port
        // The same sound files for both: klick's `-S emphasis,normal`, our --bell-sound and --beat-sound.
        let sounds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds").path
        let bell = "\(sounds)/bell.wav", beat = "\(sounds)/beat.wav"
        let klick = try server.launch("/usr/bin/klick", ["-o", String(klickPort), "-S", "\(bell),\(beat)", "120"], log: server.home.file("klick.log"))
        // klick 0.12.2 may sit out a SIGTERM: SIGKILL after 2 s.
        defer { endAll([klick]) }
        try server.waitForPort("klick:out")
        // klick answers once its OSC thread runs: a ping first.
        #expect(waitUntil(seconds: 10, every: .milliseconds(50)) { (try? Self.send(klickPort, "/klick/ping", ask: true)) != nil })
        let theirs = try Self.exchange(klickPort, expecting: 13, [["/klick/query"]])
        try #require(theirs.complete, "klick answered \(theirs.replies)")

        let run = try Run(["--bpm", "120", "--bell-sound", bell, "--beat-sound", beat])
        let ours = try Self.exchange(run.port, expecting: 13, [["/klick/query"]])
        #expect(ours.complete, "\(ours.replies)")
        #expect(ours.replies.map(\.shape) == theirs.replies.map(\.shape), "ours \(ours.replies), klick's \(theirs.replies)")
        let values = Dictionary(ours.replies.map { ($0.path, $0) }) { first, _ in first }
        #expect(values["/klick/simple/tempo"]?.number == 120 && values["/klick/simple/current_tempo"]?.number == 120)
        #expect(values["/klick/simple/meter"]?.arguments.map(\.value) == ["4", "4"])
        #expect(values["/klick/metro/active"]?.number == 1 && values["/klick/metro/type"]?.arguments.first?.value == "simple")
        #expect(values["/klick/config/volume"]?.number == 1)
        #expect(values["/klick/config/sound"] == theirs.replies.first { $0.path == "/klick/config/sound" }, "\(theirs.replies)")
        // Each part's own query: the same messages, that part's alone, to a return address too.
        #expect(try Self.exchange(run.port, expecting: 2, [["/klick/metro/query"]]).replies.map(\.shape) == Self.metroQueryAnswer)
        #expect(try Self.send(run.port, "/klick/config/query", ask: true, replyTo: true) == #"["/klick/config/sound", [["i", -2]], "reply-to"]"#)
        #expect(run.saidMore.isEmpty, "\(run.saidMore)")
    }

    /// A registered client is told of each change as klick tells it: the tempo
    /// asked (`,f`), then the tempo heard once it is heard; the volume; the
    /// meter from the next bar; stop and start as `active`. Unregistered, it is told nothing.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aRegisteredClientIsToldOfEachChange() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "240"]), port = run.port
        let tempo = try Self.exchange(port, expecting: 3, [["/klick/register_client"], ["/klick/simple/set_tempo", "f:150"]])
        #expect(tempo.replies.map(\.description).filter { $0.hasPrefix("/klick/") } == ["/klick/simple/tempo f:150.0", "/klick/simple/current_tempo f:150.0"],
                "\(tempo.replies)")
        // Each of the four changes is klick's message and our status after it.
        let others = try Self.exchange(port, expecting: 8, [["/klick/register_client"], ["/klick/config/set_volume", "f:0.5"],
                                                            ["/klick/simple/set_meter", "i:3", "i:4"], ["/klick/metro/stop"], ["/klick/metro/start"]])
        #expect(others.replies.filter { $0.path == "/metronome/status" }.count == 4, "\(others.replies)")
        let told = others.replies.map(\.description).filter { $0.hasPrefix("/klick/") }
        #expect(told.contains("/klick/config/volume f:0.5") && told.contains("/klick/simple/meter i:3 i:4"), "\(told)")
        #expect(told.filter { $0.hasPrefix("/klick/metro/active") } == ["/klick/metro/active i:0", "/klick/metro/active i:1"], "\(told)")
        // Unregistered, a change tells it nothing: the pong of the ping after it is the first thing back
        // (registered, the tempo would come first: clients are told as each message is taken).
        let quiet = try Self.exchange(port, expecting: 1, [["/klick/register_client"], ["/klick/unregister_client"],
                                                           ["/klick/simple/set_tempo", "f:100"], ["/klick/ping"]])
        #expect(quiet.replies.map(\.path) == ["/klick/pong"], "\(quiet.replies)")
    }

    /// A message of klick's that this metronome has no counterpart for is
    /// answered `/metronome/error ,ss PATH REASON`, and changes nothing; one
    /// that opens a file says it is refused without `--osc-allow-files`.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func whatHasNoCounterpartIsAnsweredWithAnError() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "120", "--meter", "4/4"]), port = run.port
        func error(_ message: [String]) throws -> String {
            let answer = try Self.exchange(port, expecting: 1, [message])
            return answer.replies.first.map { "\($0.path) \($0.arguments.map(\.value).joined(separator: ": "))" } ?? "nothing"
        }
        #expect(try error(["/klick/config/set_sound_pitch", "f:1.5", "f:1"]) == "/metronome/error /klick/config/set_sound_pitch: the sounds play at their own pitch")
        #expect(try error(["/klick/map/load_file", "s:/etc/passwd"]) == "/metronome/error /klick/map/load_file: a message that opens a file is refused without --osc-allow-files")
        #expect(try error(["/klick/simple/set_meter", "i:3", "i:8"]) == "/metronome/error /klick/simple/set_meter: the note value stays 4: only the beats per bar change while playing")
        #expect(try error(["/klick/map/query"]) == "/metronome/error /klick/map/query: function not available for current metronome type")
        #expect(try error(["/klick/metro/set_type", "s:map"]) == "/metronome/error /klick/metro/set_type: this run plays a simple metronome: its kind is chosen at the start")
        // Nothing changed: still 4/4 at 120.
        let state = try Self.exchange(port, expecting: 7, [["/klick/simple/query"]]).replies
        #expect(state.first { $0.path == "/klick/simple/meter" }?.arguments.map(\.value) == ["4", "4"], "\(state)")
        #expect(PracticeKeysTests.read(run.trace).tempi.map(\.bpm) == ["120"])
    }

    /// The beat feed: a subscriber receives each beat before it is heard, a
    /// bundle timetagged (OSC's NTP time, read by python-osc) with the instant
    /// the picture shows it heard: within 1 ms of the time the trace's frames
    /// put on the click's frame. Bar and beat from 1, the tempo, 1 on the bell.
    @Test(.enabled(if: (available && TerminalTests.tmuxInstalled) || RealTimeLoopbackTests.required))
    func theBeatFeedTimetagsEachBeatWithWhenItIsHeard() throws {
        try #require(Self.available && TerminalTests.tmuxInstalled, "python-osc and tmux are needed: run scripts/setup --test")
        let directory = TemporaryDirectory(), trace = directory.file("trace.jsonl")
        let port = try OSCSocket(host: "127.0.0.1", port: 0).port
        // A picture, so the trace has its frames: each the heard frame at a monotonic time.
        let pane = try TmuxPane(command: "ALSA_CONFIG_PATH=/nonexistent \(metronomeBinary()) --bpm 200 --meter 3/4 --osc \(port) --trace \(trace) 2>/dev/null",
                                width: 100)
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) { PracticeKeysTests.read(trace).clicks.count >= 1 })
        let result = try run("/usr/bin/python3", [Self.probe, "feed", String(port), "10"])
        try pane.send("q")
        _ = try pane.outcome(seconds: 10)
        #expect(result.status == 0, "\(result.standardOutput)")
        let lines = result.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any] }
        // Each timetag on the monotonic clock by the wall clock's offset read as it came.
        let beats = lines.dropFirst().compactMap { line -> (monotonic: Double, path: String, values: [Double], lead: Double)? in
            guard line.count == 5, let wall = line[0] as? Double, let path = line[1] as? String, let values = line[2] as? [NSNumber],
                  let received = line[3] as? Double, let offset = line[4] as? Double else { return nil }
            return (wall - offset, path, values.map(\.doubleValue), wall - received)
        }
        try #require(beats.count == 10, "\(result.standardOutput)")
        #expect(beats.allSatisfy { $0.path == "/metronome/beat" && $0.values.count == 4 && $0.values[2] == 200 })

        // Each beat's click in the trace, by bar and beat, and when the trace's frames say its frame was heard.
        let frames = try drawnFrames(trace).map { (time: $0.time, frame: Double($0.audio)) }
        let clicks = PracticeKeysTests.read(trace).clicks
        var deviations: [Double] = []
        for beat in beats {
            let bar = Int64(beat.values[0]), inBar = Int64(beat.values[1])
            let click = try #require(clicks.first { $0.bar == bar && $0.beatInBar == inBar }, "bar \(bar) beat \(inBar) not in the trace")
            #expect((beat.values[3] == 1) == click.bell && click.bell == (inBar == 1))
            // The two frames drawn either side of the click's frame: the heard line between them.
            guard let after = frames.firstIndex(where: { $0.frame >= Double(click.frame) }), after > 0 else { continue }
            let (a, b) = (frames[after - 1], frames[after])
            let heard = a.time + (Double(click.frame) - a.frame) / (b.frame - a.frame) * (b.time - a.time)
            #expect(abs(heard - beat.monotonic) < 0.001, "bar \(bar) beat \(inBar): heard at \(heard), timetag \(beat.monotonic)")
            deviations.append(abs(heard - beat.monotonic))
        }
        #expect(deviations.count >= 8, "\(deviations.count) beats placed among the trace's frames")
        #expect(beats.allSatisfy { $0.lead > 0 }, "leads \(beats.map(\.lead))")
        print("beat feed: \(beats.count) beats, timetags at most \(Int((deviations.max() ?? 0) * 1e6)) µs from the heard line, "
              + "sent \(Int((beats.map(\.lead).min() ?? 0) * 1e3)) to \(Int((beats.map(\.lead).max() ?? 0) * 1e3)) ms ahead")
    }

    /// Our own namespace does what the keys do: `/metronome/double` at 120 is a
    /// tempo event at 240, `/metronome/meter ,i 3` bars of 3 from the next bar,
    /// `/metronome/volume ,f` the volume, as klick's query then reports them.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func ourNamespaceDoesWhatTheKeysDo() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "120"]), port = run.port
        _ = try Self.exchange(port, expecting: 0, [["/metronome/double"], ["/metronome/meter", "i:3"], ["/metronome/volume", "f:0.3"]])
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) {
            let (clicks, tempi) = PracticeKeysTests.read(run.trace)
            guard let change = tempi.first(where: { $0.bpm == "240" }) else { return false }
            // A bar of 3 after it: a beat 3 followed by a beat 1.
            return clicks.indices.dropLast().contains { clicks[$0].frame > change.frame && clicks[$0].beatInBar == 3 && clicks[$0 + 1].beatInBar == 1 }
        }, "no tempo event at 240 and a bar of 3 after it")
        let state = try Self.exchange(port, expecting: 13, [["/klick/query"]]).replies
        let values = Dictionary(state.map { ($0.path, $0.arguments.map(\.value)) }) { first, _ in first }
        #expect(values["/klick/simple/tempo"] == ["240.0"] && values["/klick/simple/meter"] == ["3", "4"], "\(state)")
        #expect(values["/klick/config/volume"].flatMap { $0.first.flatMap(Double.init) }.map { abs($0 - 0.3) < 1e-6 } == true, "\(state)")
        // No bar of 4 once bars of 3 began.
        let clicks = PracticeKeysTests.read(run.trace).clicks
        // The first bar of 3: a beat 3 followed by a beat 1.
        let endOfThree = try #require(clicks.indices.dropLast().first { clicks[$0].beatInBar == 3 && clicks[$0 + 1].beatInBar == 1 }, "\(clicks.map(\.beatInBar))")
        #expect(!clicks[endOfThree...].contains { $0.beatInBar == 4 }, "\(clicks.map(\.beatInBar))")
    }

    /// `/metronome/query` answers the status line's values in one message; a
    /// registered client is told it again when any but the bar and beat change
    /// (here `/metronome/mute`), after klick's own notifications.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func theStatusIsOneMessageAndAChangeTellsItAgain() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "150", "--meter", "3/8", "--volume", "0.5"]), port = run.port
        let status = try #require(try Self.exchange(port, expecting: 1, [["/metronome/query"]]).replies.first)
        #expect(status.path == "/metronome/status" && status.arguments.map(\.type).joined() == "fiiiiiifisi", "\(status)")
        let values = status.arguments.map(\.value)
        #expect(values[0] == "150.0" && values[1] == "3" && values[2] == "8", "\(status)")
        #expect(Int(values[3]).map { $0 >= 1 } == true && Int(values[4]).map { (1...3).contains($0) } == true, "\(status)")
        #expect(Array(values[5...]) == ["1", "0", "0.5", "0", "", "-1"], "\(status)")
        let told = try Self.exchange(port, expecting: 1, [["/klick/register_client"], ["/metronome/mute"]])
        let muted = try #require(told.replies.first, "nothing told")
        #expect(muted.path == "/metronome/status" && muted.arguments[6].value == "1", "\(told.replies)")
    }

    /// `--osc-tcp`: the same namespace over TCP on the same port, each connection answered in the
    /// framing it chose (python-osc's TCP client: OSC 1.1's SLIP and 1.0's sizes; liblo's `oscsend`);
    /// a client registered over TCP is told on its connection; a connection that breaks its framing
    /// is closed, and the run plays on and answers the next.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func overTCPEachConnectionIsAnsweredInItsFraming() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "120", "--osc-tcp", "--verbose"], quiet: false), port = run.port
        let pong = try Self.exchange(port, expecting: 1, [["/klick/ping"]], overTCP: "1.1")
        #expect(pong.complete && pong.replies.map(\.shape) == ["/klick/pong ,"], "\(pong.replies)")
        let query = try Self.exchange(port, expecting: 7, [["/klick/simple/query"]], overTCP: "1.0")
        #expect(query.complete && query.replies.first?.description == "/klick/simple/tempo f:120.0", "\(query.replies)")
        #expect(query.replies.map(\.path).last == "/klick/simple/pattern")
        // Registered on the connection; the change comes over UDP, and is told on the connection.
        let told = try Self.exchange(port, expecting: 1, [["/klick/register_client"], ["udp:/klick/simple/set_tempo", "f:150"]], overTCP: "1.1")
        #expect(told.replies.first.map { $0.path.hasPrefix("/klick/simple/") && $0.number == 150 } == true, "\(told.replies)")
        // liblo's own TCP client.
        let sent = try MetronomeTestSupport.run("/usr/bin/oscsend", ["osc.tcp://127.0.0.1:\(port)", "/klick/simple/set_tempo", "f", "90"])
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) { PracticeKeysTests.read(run.trace).tempi.contains { $0.bpm == "90" } },
                "oscsend's set_tempo over TCP was not taken")
        // A size that is no OSC packet's (not a multiple of 4): the connection is closed, the ping behind it never answered.
        let broken = try Self.exchange(port, expecting: 1, [["raw:0000ffff"], ["/klick/ping"]], overTCP: "1.0")
        #expect(broken.replies.isEmpty)
        // A SLIP frame that is no OSC: dropped, counted; the ping behind it on the same connection is answered.
        let malformed = try Self.exchange(port, expecting: 1, [["raw:c0ffffffc0"], ["/klick/ping"]], overTCP: "1.1")
        #expect(malformed.replies.map(\.path) == ["/klick/pong"])
        try Self.send(port, "/klick/quit")
        #expect(waitUntil(seconds: 5, every: .milliseconds(20)) { !run.process.isRunning })
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus == 0)
        let summary = run.saidMore.first { $0.hasPrefix("osc:") } ?? ""
        #expect(summary.contains("1 malformed packet dropped") && summary.contains("6 TCP connections taken")
                    && summary.contains("1 closed for breaking their framing"), "\(summary)")
    }

    /// A TCP port in use (another server listens on it) is one line and 69 with `--osc-tcp`.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aTCPPortInUseIsOneLineAnd69() throws {
        let held = try OSCStreams(host: "127.0.0.1", port: 0)
        let result = try run(metronomeBinary(), ["--osc", String(held.port), "--osc-tcp", "--no-pendulum", "--duration", "1"],
                             environment: ["ALSA_CONFIG_PATH": "/nonexistent"])
        #expect(result.status == 69)
        #expect(result.standardError == "metronome: OSC port \(held.port) (TCP) on 127.0.0.1 is in use\n")
    }

    /// `/metronome/song`: a setlist's song by name (its case aside) or place, from the next bar line,
    /// as `n` and `p` switch; a name or a place the setlist has not, or a run with no setlist, is an error reply.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aSongByNameOrPlaceStartsAtTheNextBarLine() throws {
        try #require(Self.available, "\(Self.needs)")
        let directory = TemporaryDirectory()
        try "two: 1 2/4 150\n".write(toFile: directory.file("map.txt"), atomically: true, encoding: .utf8)
        try "Fast: 240\nWaltz: 180 3/4\nMap: map.txt\n".write(toFile: directory.file("set.txt"), atomically: true, encoding: .utf8)
        let run = try Run(["--setlist", directory.file("set.txt")]), port = run.port
        try Self.send(port, "/metronome/song", ["s:waltz"])
        var waltz: SetlistKeysTests.SongEvent?
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) {
            waltz = SetlistKeysTests.songs(run.trace).first { $0.name == "Waltz" }
            return waltz != nil
        }, "no switch to the waltz")
        // Fast's bars are 48000 frames: the waltz starts on one of its bar lines.
        let switched = try #require(waltz)
        #expect(switched.song == 2 && switched.frame > 0 && switched.frame % 48_000 == 0, "\(switched)")
        try Self.send(port, "/metronome/song", ["i:3"])
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) { SetlistKeysTests.songs(run.trace).contains { $0.name == "Map" } },
                "no switch to the third song")
        let refusals = try Self.exchange(port, expecting: 2, [["/metronome/song", "s:Encore"], ["/metronome/song", "i:4"]]).replies
        #expect(refusals.map(\.description) == ["/metronome/error s:/metronome/song s:no song of the setlist is named 'Encore'",
                                                "/metronome/error s:/metronome/song s:the setlist has songs 1 to 3, not 4"], "\(refusals)")
        let plain = try Run(["--bpm", "120"])
        let none = try Self.exchange(plain.port, expecting: 1, [["/metronome/song", "i:1"]]).replies
        #expect(none.map(\.description) == ["/metronome/error s:/metronome/song s:this run plays no setlist (--setlist FILE)"], "\(none)")
    }

    /// `/klick/map/load_file` with `--osc-allow-files`: the map plays from the next bar line, as a
    /// setlist's next song (the trace's song event at a bar line, the new map's tempo from it),
    /// and `/klick/map/query` names its file. A map that does not parse, a directory, a file that
    /// is not there and a run with no plan to follow are each one error reply, and change nothing.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func aMapLoadedOverOSCPlaysFromTheNextBarLine() throws {
        try #require(Self.available, "\(Self.needs)")
        let directory = TemporaryDirectory()
        // 240 bpm in 4/4: a bar is 48000 frames.
        try "intro: 100 4/4 240\n".write(toFile: directory.file("first.txt"), atomically: true, encoding: .utf8)
        try "verse: 4 3/4 150\n".write(toFile: directory.file("second.txt"), atomically: true, encoding: .utf8)
        try "verse: 4 3/4 fast\n".write(toFile: directory.file("broken.txt"), atomically: true, encoding: .utf8)
        let run = try Run(["--tempo-map", directory.file("first.txt"), "--osc-allow-files"]), port = run.port
        let second = directory.file("second.txt")
        let refusals = try Self.exchange(port, expecting: 3, [["/klick/map/load_file", "s:\(directory.file("broken.txt"))"],
                                                              ["/klick/map/load_file", "s:\(directory.path)"],
                                                              ["/klick/map/load_file", "s:\(directory.file("absent.txt"))"]]).replies
        #expect(refusals.count == 3 && refusals.allSatisfy { $0.path == "/metronome/error" && $0.arguments.first?.value == "/klick/map/load_file" },
                "\(refusals)")
        #expect(refusals.first?.arguments.last?.value.contains("broken.txt:1") == true, "\(refusals)")
        #expect(refusals.dropFirst().first?.arguments.last?.value == "'\(directory.path)' is not a regular file", "\(refusals)")
        // The run's own map is the first song; nothing else started.
        #expect(SetlistKeysTests.songs(run.trace).map(\.name) == ["first.txt"])

        try Self.send(port, "/klick/map/load_file", ["s:\(second)"])
        var loaded: SetlistKeysTests.SongEvent?
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) {
            loaded = SetlistKeysTests.songs(run.trace).first { $0.name == "second.txt" }
            return loaded.map { event in PracticeKeysTests.read(run.trace).clicks.filter { $0.frame >= event.frame }.count >= 4 } ?? false
        }, "the loaded map did not play")
        let start = try #require(loaded)
        #expect(start.frame > 0 && start.frame % 48_000 == 0, "\(start)")
        // From its bar line: 150 bpm (19200 frames a beat), a bell every third beat.
        let after = PracticeKeysTests.read(run.trace).clicks.filter { $0.frame >= start.frame }.prefix(4)
        #expect(after.map { $0.frame - start.frame } == [0, 19_200, 38_400, 57_600], "\(after.map(\.frame))")
        #expect(after.map(\.bell) == [true, false, false, true])
        let map = try Self.exchange(port, expecting: 3, [["/klick/map/query"]]).replies
        #expect(map.first?.description == "/klick/map/filename s:\(second)", "\(map)")

        let plain = try Run(["--bpm", "120", "--osc-allow-files"])
        let none = try Self.exchange(plain.port, expecting: 1, [["/klick/map/load_file", "s:\(second)"]]).replies
        #expect(none.first?.arguments.last?.value == "a map loads into a run that plays one: start with --tempo-map FILE, --setlist FILE or the trainer",
                "\(none)")
    }

    /// liblo's own tools as the peer: `oscsend` registers `oscdump` as a client and subscribes it to
    /// the beat feed, then sets the tempo; `oscdump` (liblo decoding our packets) prints the tempo's
    /// notification, and the beats' bundles with their timetags, a beat of 150 bpm (0.4 s) apart
    /// to within 1 ms (the heard line of a run without a sound card follows the clock's pacing).
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func libloToolsRegisterSubscribeAndReadTheFeed() throws {
        try #require(Self.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/oscdump"),
                     "python-osc and liblo-tools are needed: run scripts/setup --test")
        let run = try Run(["--bpm", "120"]), port = run.port
        let directory = TemporaryDirectory(), dump = directory.file("dump.txt")
        let dumpPort = try OSCSocket(host: "127.0.0.1", port: 0).port
        let dumper = try launchLogged("/usr/bin/oscdump", ["-L", String(dumpPort)], environment: [:], log: dump)
        // oscdump waits in liblo's receive and sees a TERM only at its next packet: killed.
        defer { kill(dumper.processIdentifier, SIGKILL); dumper.waitUntilExit() }
        let url = "osc.udp://127.0.0.1:\(dumpPort)/"
        func oscsend(_ arguments: [String]) throws { _ = try MetronomeTestSupport.run("/usr/bin/oscsend", ["osc.udp://127.0.0.1:\(port)"] + arguments) }
        func lines() -> [Substring] { ((try? String(contentsOfFile: dump, encoding: .utf8)) ?? "").split(separator: "\n") }
        // oscdump is listening once a pong sent to it is printed.
        #expect(try waitUntil(seconds: 10, every: .milliseconds(100)) {
            try oscsend(["/klick/ping", "s", url])
            return lines().contains { $0.contains("/klick/pong") }
        }, "oscdump never printed a pong")
        try oscsend(["/klick/register_client", "s", url])
        try oscsend(["/metronome/subscribe", "s", url])
        try oscsend(["/klick/simple/set_tempo", "f", "150"])
        #expect(waitUntil(seconds: 10, every: .milliseconds(20)) {
            lines().filter { $0.contains("/metronome/beat iifi") && $0.contains(" 150.000000 ") }.count >= 5
        }, "\(lines().suffix(10))")
        #expect(lines().contains { $0.hasSuffix(" /klick/simple/tempo f 150.000000") }, "\(lines().prefix(10))")
        // `SECONDS.FRACTION` in hex, NTP's: each beat at 150 bpm 0.4 s after the one before.
        let timetags = lines().filter { $0.contains("/metronome/beat iifi") && $0.contains(" 150.000000 ") }.compactMap { line -> Double? in
            let parts = line.split(separator: " ").first?.split(separator: ".") ?? []
            guard parts.count == 2, let seconds = UInt64(parts[0], radix: 16), let fraction = UInt64(parts[1], radix: 16) else { return nil }
            return Double(seconds) + Double(fraction) / 4_294_967_296
        }
        let gaps = zip(timetags, timetags.dropFirst()).map { $1 - $0 }
        #expect(gaps.count >= 4 && gaps.allSatisfy { abs($0 - 0.4) < 0.001 }, "\(gaps)")
    }

    /// `--osc-host ::` listens on both families: an IPv4 client (python-osc on 127.0.0.1) comes as
    /// ::ffff:127.0.0.1, and its return address naming 127.0.0.1 is its own host: answered there.
    @Test(.enabled(if: available || RealTimeLoopbackTests.required))
    func onBothFamiliesAnIPv4ClientsReturnAddressIsItsOwn() throws {
        try #require(Self.available, "\(Self.needs)")
        let run = try Run(["--bpm", "120", "--osc-host", "::"]), port = run.port
        #expect(try Self.send(port, "/klick/ping", ask: true) == #"["/klick/pong", [], "sender"]"#)
        #expect(try Self.send(port, "/klick/ping", ask: true, replyTo: true) == #"["/klick/pong", [], "reply-to"]"#)
    }
}
