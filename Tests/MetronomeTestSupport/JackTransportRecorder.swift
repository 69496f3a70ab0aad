import Foundation

/// JACK's transport as a client reads it (`jack_transport_query`): the state,
/// the frame and, when the timebase master filled it, the bar, beat and tick.
package struct JackTransportReading: Equatable, Sendable, CustomStringConvertible {
    /// `jack_transport_state_t`.
    package enum State: Int, Sendable {
        case stopped = 0, rolling = 1, looping = 2, starting = 3, netStarting = 4
    }

    /// The fields of `JackPositionBBT`, as the master wrote them.
    package struct BBT: Equatable, Sendable {
        package let bar: Int
        package let beat: Int
        package let tick: Int
        package let beatsPerBar: Double
        package let beatType: Double
        package let ticksPerBeat: Double
        package let beatsPerMinute: Double
        package let barStartTick: Double

        /// The bar, beat and tick, as `ArdourSession.expectedBBT(atFrame:)` gives a frame's.
        package var position: (bar: Int64, beat: Int64, tick: Int64) { (Int64(bar), Int64(beat), Int64(tick)) }
    }

    package let state: State
    package let frame: Int64
    package let bbt: BBT?

    /// One line of `jack_transport_rec`: `STATE FRAME BBT BAR BEAT TICK BEATS_PER_BAR BEAT_TYPE TICKS_PER_BEAT BPM BAR_START_TICK`.
    package init?<Line: StringProtocol>(_ line: Line) {
        let fields = line.split(separator: " ")
        guard fields.count == 11, let stateValue = Int(fields[0]), let state = State(rawValue: stateValue),
              let frame = Int64(fields[1]), let valid = Int(fields[2]) else { return nil }
        self.state = state
        self.frame = frame
        guard valid == 1 else { bbt = nil; return }
        let numbers = fields[6...].compactMap { Double($0) }
        guard let bar = Int(fields[3]), let beat = Int(fields[4]), let tick = Int(fields[5]), numbers.count == 5 else { return nil }
        bbt = BBT(bar: bar, beat: beat, tick: tick, beatsPerBar: numbers[0], beatType: numbers[1], ticksPerBeat: numbers[2],
                  beatsPerMinute: numbers[3], barStartTick: numbers[4])
    }

    package var description: String {
        let position = bbt.map { " \($0.bar)|\($0.beat)|\($0.tick) \($0.beatsPerBar)/\($0.beatType) at \($0.beatsPerMinute) bpm" } ?? " no BBT"
        return "\(state) at \(frame)\(position)"
    }
}

/// One cycle of a `JackTransportRecorder.record`: where it starts in the
/// recording and the transport it began with.
package struct TransportCycle: Sendable {
    package let at: Int64
    package let reading: JackTransportReading
}

/// `Tests/Tools/jack_transport_rec.c`, a client of its own that reads JACK's
/// transport, built with the Swift toolchain's clang on the loopback's server:
/// independent of `jack_transport` and of the metronome.
package final class JackTransportRecorder {
    private let loopback: JackLoopback
    private let program: String

    package init(on loopback: JackLoopback) throws {
        self.loopback = loopback
        program = loopback.home.file("jack_transport_rec")
        guard !FileManager.default.isExecutableFile(atPath: program) else { return }
        guard let compiler = JackLoopback.compiler else { throw JackLoopback.LoopbackError.notReady("no clang or cc on PATH") }
        let built = try run(compiler, ["-O2", "-o", program, toolSource("jack_transport_rec.c"), "-ljack"])
        guard built.status == 0 else { throw JackLoopback.LoopbackError.notReady("cannot build jack_transport_rec: \(built.standardError)") }
    }

    /// The transport now.
    package func query() throws -> JackTransportReading {
        let result = try run(program, ["query"], environment: loopback.environment)
        guard result.status == 0, let reading = JackTransportReading(result.standardOutput.trimmingCharacters(in: .newlines)) else {
            throw JackLoopback.LoopbackError.notReady("cannot read JACK's transport: \(result.standardOutput)\(result.standardError)")
        }
        return reading
    }

    /// Records `port` for `seconds` of JACK time while `body` runs, each cycle
    /// at its frame time and the transport each cycle began with beside it.
    package func record(_ port: String, seconds: Int, while body: () throws -> Void) throws -> (samples: [Float], cycles: [TransportCycle]) {
        let file = loopback.home.file("transport-recording.f32"), log = loopback.home.file("transport-recording.log")
        let recorder = try loopback.launch(program, [port, "\(seconds)", file], log: log)
        defer { endAll([recorder]) }
        let connected = waitUntil(seconds: 10, every: .milliseconds(20)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("recording") || !recorder.isRunning
        }
        guard connected, recorder.isRunning else {
            throw JackLoopback.LoopbackError.notReady("jack_transport_rec did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        try body()
        recorder.waitUntilExit()
        guard recorder.terminationStatus == 0 else {
            throw JackLoopback.LoopbackError.notReady("jack_transport_rec failed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        let samples = try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let cycles = try String(contentsOfFile: file + ".transport", encoding: .utf8).split(separator: "\n").compactMap { line -> TransportCycle? in
            guard let space = line.firstIndex(of: " "), let at = Int64(line[..<space]),
                  let reading = JackTransportReading(line[line.index(after: space)...]) else { return nil }
            return TransportCycle(at: at, reading: reading)
        }
        return (samples, cycles)
    }
}

/// A file of `Tests/Tools`.
package func toolSource(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/\(name)").path
}
