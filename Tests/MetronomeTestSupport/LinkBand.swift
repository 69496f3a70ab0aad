import Foundation
import Testing

/// LinkHut and our metronomes side by side on one JACK server (the dummy
/// driver), recorded by JACK's clock: LinkHut's `out_1` on channel 0 (only to
/// the recorder, so its output latency is the recorder's), each metronome
/// through its own ALSA jack plugin device (`metA`, `metB`, alone or behind
/// ALSA's `plug`) on channels 1 and 2. The metronomes play the impulse
/// sounds, so every click is one nonzero sample that says whether it was the bell.
package final class LinkBand {
    package let hut: LinkHutPeer
    package let sounds: (beat: String, bell: String)
    package let recordingFile: String
    private var recorder: Process?
    package static let channels = 3

    package static var isAvailable: Bool { LinkHutPeer.isInstalled && JackLoopback.isInstalled && JackLoopback.canBuildRecorder }

    /// How the metronomes' devices reach JACK.
    package enum Devices: String, CaseIterable, Sendable {
        /// The jack plugin itself.
        case bare
        /// ALSA's recipe for JACK: `type plug` over the jack plugin.
        case plug

        /// The device `name` playing into the recorder's `port`.
        package func definition(_ name: String, port: String) -> String {
            let jack = "{ type jack; playback_ports { 0 \(port) } }"
            return self == .bare ? "pcm.\(name) \(jack)\n" : "pcm.\(name) { type plug; slave.pcm \(jack) }\n"
        }
    }

    /// LinkHut with Link on at `bpm`, playing (or stopped, sharing start and
    /// stop), its session old enough to be the one joined.
    package init(bpm: Double, startStopSync: Bool = false, namespace: String? = nil, devices: Devices = .bare) throws {
        hut = try LinkHutPeer(namespace: namespace)
        let home = hut.home
        try (devices.definition("metA", port: "multirec:in_2") + devices.definition("metB", port: "multirec:in_3"))
            .write(toFile: home.file(".asoundrc"), atomically: true, encoding: .utf8)
        sounds = try writeImpulseSoundFiles(in: home)
        recordingFile = home.file("band.f32")
        // LinkHut connects itself to the system's playback ports: the recorder alone hears it.
        for port in 1...2 {
            _ = try run("/usr/bin/jack_disconnect", ["LinkHut:out_\(port)", "system:playback_\(port)"], environment: hut.environment)
        }
        hut.enableLink()
        hut.setTempo(bpm)
        if startStopSync {
            hut.press("s")
            hut.hut.waitUntil("LinkHut shares start and stop") { hut.status?.startStopSync == true }
        } else {
            hut.press(" ")
            hut.hut.waitUntil("LinkHut plays") { hut.status?.playing == true }
        }
        hut.waitUntilTheSessionCanOnlyBeJoined()
    }

    /// Starts recording `seconds` of JACK time; returns once the recorder is connected.
    package func startRecording(seconds: Int) throws {
        let program = try JackLoopback.buildTool("jack_multi_rec", into: hut.home.path, flags: ["-ljack"])
        let log = hut.home.file("recorder.log")
        recorder = try launchLogged(program, ["\(seconds)", recordingFile, "LinkHut:out_1", "-", "-"], environment: hut.environment, log: log)
        waitUntil(seconds: 10, every: .milliseconds(20)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("recording")
        }
        try #require(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("recording"), "the recorder never connected")
    }

    /// A metronome on `device` with `arguments` and the impulse sounds, its lines collected;
    /// in network namespace `namespace`, if given.
    package func metronome(device: String, _ arguments: [String], namespace: String? = nil) throws -> PeerProcess {
        try metronome(output: ["--device", device], name: device, arguments, namespace: namespace)
    }

    /// The metronome `metA` as a JACK client of its own (`--jack`), its port to the recorder's channel 1 (or to `port`).
    package func jackMetronome(_ arguments: [String], connect port: String = "multirec:in_2") throws -> PeerProcess {
        try metronome(output: ["--jack", "--jack-name", "metA", "--connect", port], name: "JACK client metA", arguments)
    }

    /// A metronome playing through `output` (options), called `name` in messages.
    private func metronome(output: [String], name device: String, _ arguments: [String], namespace: String? = nil) throws -> PeerProcess {
        let command = [metronomeBinary()] + output + ["--beat-sound", sounds.beat, "--bell-sound", sounds.bell] + arguments
        if let namespace {
            return try PeerProcess("/bin/ip", ["netns", "exec", namespace] + command, environment: hut.environment,
                                   name: "metronome on \(device) in \(namespace)")
        }
        return try PeerProcess(command[0], Array(command.dropFirst()), environment: hut.environment, name: "metronome on \(device)")
    }

    /// Waits for the recorder to finish; returns the recording's channels.
    package func recording() throws -> [[Float]] {
        let recorder = try #require(recorder)
        recorder.waitUntilExit()
        let samples = try Data(contentsOf: URL(fileURLWithPath: recordingFile)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var channels = [[Float]](repeating: [], count: Self.channels)
        for (index, sample) in samples.enumerated() { channels[index % Self.channels].append(sample) }
        return channels
    }

    /// LinkHut's clicks: where each tone burst starts (a nonzero sample after
    /// 1000 silent ones), and whether it is the downbeat's 1568 Hz (the other beats' is 1109 Hz).
    package static func hutClicks(_ samples: [Float]) -> [(frame: Int64, downbeat: Bool)] {
        var clicks: [(frame: Int64, downbeat: Bool)] = []
        var silent = 1_000
        for (index, sample) in samples.enumerated() {
            if sample == 0 {
                silent += 1
                continue
            }
            if silent >= 1_000 {
                // Sign changes over 10 ms: 2 a cycle.
                let window = samples[index..<min(samples.count, index + 480)]
                let changes = zip(window, window.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
                clicks.append((Int64(index), Double(changes) / 2 / 0.01 > 1_340))
            }
            silent = 0
        }
        return clicks
    }

    /// A metronome's clicks: its impulses, the bell negative.
    package static func metronomeClicks(_ samples: [Float]) -> [(frame: Int64, bell: Bool)] {
        onsets(samples).map { ($0.frame, $0.value < 0) }
    }

    /// Whether LinkHut clicked on its own timeline: every interval between two of
    /// its clicks within 1 ms (48 frames) of a beat of one of `beatMicroseconds`
    /// (Link keeps a beat as whole microseconds), but one (where the tempo
    /// changed). LinkHut places its clicks by its audio callbacks' wake times;
    /// on a loaded machine those ran late and its line tilted (seen in a full
    /// Link suite: its beats 70 to 400 frames short at 101 bpm for seconds, while
    /// two metronomes agreed with each other to the frame): the reference is off,
    /// not the metronome, and the take is taken again.
    package static func hutIsSteady(_ hut: [(frame: Int64, downbeat: Bool)], beatMicroseconds: [Int64]) -> Bool {
        let beats = beatMicroseconds.map { Double($0) * 48_000 / 1_000_000 }
        let off = zip(hut, hut.dropFirst()).filter { earlier, later in beats.allSatisfy { abs(Double(later.frame - earlier.frame) - $0) > 48 } }
        return off.count <= 1
    }

    /// Each click of `ours` with the nearest click of `theirs` and the distance in frames (ours − theirs).
    package static func nearest(_ ours: [Int64], in theirs: [Int64]) -> [(ours: Int64, theirs: Int, offset: Int64)] {
        ours.compactMap { frame in
            guard let index = theirs.indices.min(by: { abs(theirs[$0] - frame) < abs(theirs[$1] - frame) }) else { return nil }
            return (frame, index, frame - theirs[index])
        }
    }
}
