import Foundation
import Testing
import MetronomeTiming

/// Ardour (Debian's `ardour`, 7.3) run headless on a `JackLoopback`'s
/// server as JACK's timebase master: a real DAW leading the transport.
///
/// A session made with `ardour7-new_empty_session` in a directory of its own
/// (an absolute path: a relative one crashes Ardour), its one tempo and meter
/// written into the session file before it loads (Ardour 7.3 keeps
/// publishing the first tempo and meter after a change, so it leads at a
/// constant tempo), opened by `ardour7-lua` running
/// `Tests/Tools/ardour_session.lua`, which follows JACK's transport ("JACK
/// Transport" as the transport master, external sync on), leads its timebase
/// (`jack-time-master`), clicks (the beat and bell of `writeImpulseSoundFiles`,
/// one sample each) and takes commands on its standard input.
///
/// By default libjack's requests to the server are made one at a time
/// (`Tests/Tools/jack_serialised.c`, preloaded): on jackd2 1.9.21 Ardour's
/// loads otherwise end in "JACK HALTED" now and then.
package final class ArdourSession {
    package static let lua = "/usr/bin/ardour7-lua"
    package static let newSession = "/usr/bin/ardour7-new_empty_session"
    /// The library `Tests/Tools/jack_serialised.c` passes calls on to.
    package static let libjack = "/usr/lib/x86_64-linux-gnu/libjack.so.0"
    package static var isInstalled: Bool {
        [lua, newSession].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } && FileManager.default.fileExists(atPath: libjack)
    }
    /// Ardour's JACK client, its click's first output.
    package static let clickPort = "ardour:Click/audio_out 1"
    /// What Ardour's transport counts a beat in (`Temporal::ticks_per_beat`).
    package static let ticksPerBeat = 1920

    package let tempo: Tempo
    package let meter: Meter
    /// The session's directory (absolute) and its snapshot's name.
    package let path: String
    package let name = "metronome"
    /// How long the load took that succeeded: from starting `ardour7-lua` to
    /// its session timebase master on the server.
    package private(set) var loadDuration: Duration = .zero
    /// The loads tried (a load that halted is tried again while `loads` allow).
    package private(set) var attempts = 0
    /// What each failed load printed last.
    package private(set) var failures: [String] = []

    private let loopback: JackLoopback
    private let directory = TemporaryDirectory()
    private let environment: [String: String]
    private var ardour: PeerProcess?
    private let transport: JackTransportRecorder

    /// Makes a session at `tempo` and `meter` and opens it in Ardour on
    /// `loopback`'s server, trying at most `loads` times; returns once Ardour
    /// is timebase master with the session's tempo and meter, stopped at
    /// frame 0. `serialised: false` runs Ardour on the real libjack, to
    /// measure what the shim is for.
    package init(on loopback: JackLoopback, tempo: Tempo, meter: Meter, serialised: Bool = true, loads: Int = 2) throws {
        self.loopback = loopback
        self.tempo = tempo
        self.meter = meter
        path = directory.file("session")
        transport = try JackTransportRecorder(on: loopback)
        let (beat, bell) = try writeImpulseSoundFiles(in: directory)
        var environment = loopback.environment
        // Ardour's configuration is under HOME's .config (writeConfiguration), whatever XDG_CONFIG_HOME the suite runs with.
        environment["HOME"] = directory.path
        environment["XDG_CONFIG_HOME"] = directory.path + "/.config"
        try FileManager.default.createDirectory(atPath: directory.file("made"), withIntermediateDirectories: true)
        // Made before the configuration below exists: with it, the tool crashes as it exits.
        let made = try run(Self.newSession, [path, name],
                           environment: environment.merging(["HOME": directory.file("made"), "XDG_CONFIG_HOME": directory.file("made") + "/.config"]) { $1 })
        guard made.status == 0, FileManager.default.fileExists(atPath: "\(path)/\(name).ardour") else {
            throw ArdourError.notReady("ardour7-new_empty_session failed (\(made.status)): \(made.standardError)")
        }
        try Self.setTempoMap(of: "\(path)/\(name).ardour", tempo: tempo, meter: meter)
        try Self.writeConfiguration(home: directory.path, beat: beat, bell: bell)
        if serialised { environment["LD_PRELOAD"] = try Self.buildSerialisedLibjack(in: directory) }
        self.environment = environment
        for attempt in 1...max(loads, 1) {
            attempts = attempt
            if try load() { return }
        }
        throw ArdourError.notReady("Ardour did not load in \(attempts) tries:\n\(failures.joined(separator: "\n---\n"))")
    }

    package enum ArdourError: Error { case notReady(String) }

    /// Starts `ardour7-lua` and waits (60 s at most) for its session to lead
    /// the transport; false, with what it printed in `failures`, if it halted.
    private func load() throws -> Bool {
        let started = ContinuousClock.now
        let process = try PeerProcess(Self.lua, ["-X", toolSource("ardour_session.lua"), path, name],
                                      environment: environment, name: "ardour7-lua")
        let answered = waitUntil(seconds: 60, every: .milliseconds(20)) {
            !process.isRunning || process.lines.contains { $0.hasPrefix("@ardour ready") || $0.hasPrefix("@ardour failed") }
        }
        // Leading with the session's tempo and meter: a cycle or two of Ardour's default (120 bpm, 4/4)
        // may come first.
        let leading = answered && process.isRunning && process.lines.contains { $0.hasPrefix("@ardour ready") }
            && waitUntil(seconds: 10, every: .milliseconds(20)) {
                (try? transport.query())?.bbt.map(carriesTheSessionsMap) == true || !process.isRunning
            }
            && process.isRunning
        guard leading else {
            failures.append(process.lines.filter { !$0.contains("call-slot") && !$0.contains("call slot") }.suffix(8).joined(separator: "\n"))
            process.stop(sending: "quit\n")
            return false
        }
        loadDuration = ContinuousClock.now - started
        ardour = process
        return true
    }

    /// Sends one command and waits (10 s at most) for its one answer.
    @discardableResult
    private func command(_ text: String) throws -> String {
        guard let ardour, ardour.isRunning else { throw ArdourError.notReady("Ardour is not running: \(log)") }
        let before = ardour.lines.filter { $0.hasPrefix("@ardour ") }.count
        ardour.send(text + "\n")
        var answer: String?
        waitUntil(seconds: 10, every: .milliseconds(5)) {
            let answers = ardour.lines.filter { $0.hasPrefix("@ardour ") }
            if answers.count > before { answer = answers[before] }
            return answer != nil || !ardour.isRunning
        }
        guard let answer else { throw ArdourError.notReady("no answer from Ardour to '\(text)': \(log)") }
        guard !answer.hasPrefix("@ardour unknown") else { throw ArdourError.notReady("Ardour did not understand '\(text)'") }
        return answer
    }

    /// Asks the transport to roll (Ardour starts JACK's transport).
    package func roll() throws { try command("roll") }

    /// Asks the transport to stop.
    package func stop() throws { try command("stop") }

    /// Asks the transport to move to `frame`, rolling on if it rolls.
    package func locate(_ frame: Int64) throws { try command("locate \(frame)") }

    /// Ardour's own position: its transport sample, and whether it rolls.
    package func position() throws -> (frame: Int64, rolling: Bool) {
        let fields = try command("position").split(separator: " ")
        guard fields.count == 4, let frame = Int64(fields[2]) else { throw ArdourError.notReady("a position Ardour gave: \(fields)") }
        return (frame, fields[3] == "1")
    }

    /// JACK's transport, as a client of its own reads it.
    package func query() throws -> JackTransportReading { try transport.query() }

    /// Records `port` (Ardour's click by default) for `seconds` with the
    /// transport of each cycle, while `body` runs.
    package func record(_ port: String = ArdourSession.clickPort, seconds: Int,
                        while body: () throws -> Void) throws -> (samples: [Float], cycles: [TransportCycle]) {
        try transport.record(port, seconds: seconds, while: body)
    }

    /// The playback latency JACK gives `port` (`jack_port_get_latency_range`,
    /// read by `jack_lsp -l`): from the click's port, that of the system's
    /// playback it is connected to, which Ardour sends its click ahead by.
    package func playbackLatency(of port: String = ArdourSession.clickPort) throws -> Int64 {
        let listing = try JackLoopback.listPorts(["-l", port], environment: loopback.environment)
        let lines = listing.split(separator: "\n").map(String.init)
        guard let index = lines.firstIndex(of: port), index + 1 < lines.count,
              let range = lines[(index + 1)...].first(where: { $0.contains("playback latency") }),
              let minimum = range.split(separator: " ").compactMap({ Int64($0) }).first else {
            throw ArdourError.notReady("no playback latency for \(port) in: \(listing)")
        }
        return minimum
    }

    /// Polls JACK's transport (10 s at most) until `condition` holds; the last reading.
    @discardableResult
    package func waitForTransport(_ what: String, seconds: Double = 10,
                                  _ condition: (JackTransportReading) -> Bool) throws -> JackTransportReading {
        var last: JackTransportReading?
        let held = try waitUntil(seconds: seconds, every: .milliseconds(20)) {
            last = try transport.query()
            return last.map(condition) ?? false
        }
        guard held, let last else { throw ArdourError.notReady("JACK's transport never \(what): last \(last.map { "\($0)" } ?? "none")") }
        return last
    }

    /// Whether Ardour is still running (not halted).
    package var isRunning: Bool { ardour?.isRunning ?? false }

    /// What Ardour printed, without its event loop's chatter.
    package var log: String {
        (ardour?.lines ?? []).filter { !$0.contains("call-slot") && !$0.contains("call slot") }.suffix(20).joined(separator: "\n")
    }

    /// Whether `bbt` has this session's tempo (to a thousandth of a beat a minute: Ardour keeps a beat
    /// as whole superclocks, millionths off) and its meter.
    private func carriesTheSessionsMap(_ bbt: JackTransportReading.BBT) -> Bool {
        abs(bbt.beatsPerMinute - Double(tempo.millibeatsPerMinute) / 1000) < 1e-3
            && bbt.beatsPerBar == Double(meter.beatsPerBar) && bbt.beatType == Double(meter.noteValue)
    }

    /// The bar, beat and tick of `frame` on a constant tempo, exactly, as
    /// JACK's BBT counts them (bar and beat from 1), the tick rounded to the
    /// nearest as Ardour rounds it: an oracle independent of the metronome's.
    package func expectedBBT(atFrame frame: Int64, rate: Int64 = 48_000) -> (bar: Int64, beat: Int64, tick: Int64) {
        // beats = frame · mbpm / (60 000 · rate), in integers.
        let denominator = 60_000 * rate
        let numerator = frame * tempo.millibeatsPerMinute
        let beats = numerator / denominator
        let tick = ((numerator % denominator) * Int64(Self.ticksPerBeat) * 2 + denominator) / (2 * denominator)
        let perBar = Int64(meter.beatsPerBar)
        return (beats / perBar + 1, beats % perBar + 1, tick)
    }

    /// Writes the session's one tempo and one meter over the default
    /// (120 bpm, 4/4) that `ardour7-new_empty_session` wrote.
    private static func setTempoMap(of file: String, tempo: Tempo, meter: Meter) throws {
        var text = try String(contentsOfFile: file, encoding: .utf8)
        let bpm = "\(Double(tempo.millibeatsPerMinute) / 1000)"
        let replacements = [
            ("npm=\"120\" enpm=\"120\" note-type=\"4\"", "npm=\"\(bpm)\" enpm=\"\(bpm)\" note-type=\"\(meter.noteValue)\""),
            ("<Meter note-value=\"4\" divisions-per-bar=\"4\"", "<Meter note-value=\"\(meter.noteValue)\" divisions-per-bar=\"\(meter.beatsPerBar)\""),
        ]
        for (old, new) in replacements {
            guard text.components(separatedBy: old).count == 2 else { throw ArdourError.notReady("no \(old) in \(file)") }
            text = text.replacingOccurrences(of: old, with: new)
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// Ardour's user configuration (`~/.config/ardour7/config`): the click on,
    /// with impulses for sounds, and "JACK Transport" the transport master.
    private static func writeConfiguration(home: String, beat: String, bell: String) throws {
        let directory = "\(home)/.config/ardour7"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <Ardour>
              <Config>
                <Option name="clicking" value="1"/>
                <Option name="click-sound" value="\(beat)"/>
                <Option name="click-emphasis-sound" value="\(bell)"/>
                <Option name="use-click-emphasis" value="1"/>
                <Option name="click-gain" value="1"/>
              </Config>
              <TransportMasters current="JACK Transport">
                <TransportMaster type="Engine" name="JACK Transport" removeable="0"/>
              </TransportMasters>
            </Ardour>

            """.write(toFile: "\(directory)/config", atomically: true, encoding: .utf8)
    }

    /// Builds `Tests/Tools/jack_serialised.c` and the stub that lends it the
    /// real libjack's path; returns the library to preload.
    private static func buildSerialisedLibjack(in directory: TemporaryDirectory) throws -> String {
        guard let compiler = JackLoopback.compiler else { throw ArdourError.notReady("no clang or cc on PATH") }
        let stub = directory.file("libjack-real-stub.so"), shim = directory.file("libjack-serialised.so")
        let steps = [
            ["-shared", "-Wl,-soname,\(libjack)", "-o", stub, "-x", "c", "/dev/null"],
            ["-shared", "-fPIC", "-O2", "-Wl,-soname,libjack.so.0", "-Wl,--no-as-needed", "-o", shim, toolSource("jack_serialised.c"), stub],
        ]
        for arguments in steps {
            let built = try run(compiler, arguments)
            guard built.status == 0 else { throw ArdourError.notReady("cannot build the libjack shim: \(built.standardError)") }
        }
        return shim
    }

    /// Closes the session and ends Ardour.
    package func close() {
        ardour?.stop(sending: "quit\n")
        ardour = nil
    }

    deinit {
        close()
    }
}
