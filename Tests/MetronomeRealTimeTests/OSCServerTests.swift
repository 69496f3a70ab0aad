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
        init(_ arguments: [String]) throws {
            let directory = TemporaryDirectory(), trace = directory.file("trace.jsonl")
            self.directory = directory
            self.trace = trace
            port = try OSCSocket(host: "127.0.0.1", port: 0).port
            log = directory.file("metronome.log")
            process = try launchLogged(metronomeBinary(), ["--osc", String(port), "--no-pendulum", "--quiet", "--trace", trace] + arguments,
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
        // A return address that is none: refused, nothing back, and nothing printed by liblo.
        #expect(try Self.send(port, "/klick/ping", ["s:osc:"], ask: true) == nil)
        // A ping with an argument that is not a string is refused: nothing comes back.
        #expect(try Self.send(port, "/klick/ping", ["i:3"], ask: true) == nil)
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
            (["--osc", "9000", "--output", "/tmp/never.wav"], "metronome: --osc does not mix with --output: it controls a run that plays live\n"),
        ]
        for (arguments, line) in cases {
            let result = try run(metronomeBinary(), arguments + ["--no-pendulum", "--duration", "1"], environment: environment)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError == line, "\(arguments)")
        }
    }
}
