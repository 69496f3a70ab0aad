import MetronomeSupport
import MetronomeTiming

/// A JACK client playing a click track: its output port (or one a voice,
/// `JackVoices`), connected where asked, and each cycle the port's buffer
/// handed to a `JackPlayback`.
package final class JackOutput: JackHost, JackProcessor, @unchecked Sendable {
    private let client: JackClient
    private let ports: Ports
    private let clock: JackClock
    private let transport: JackTransport
    private let ourClock = MonotonicClock()
    /// What the metronome does with the transport; read by the process callback.
    package let role: JackTransportRole
    private let followsTransport: Bool
    package let rate: SampleRate
    /// Set once, before the client is activated; read by the process callback only after.
    private var playback: JackPlayback?
    /// `--midi-notes`, `--midi-clock`: the MIDI output `midi_out`, which carries the clicks as notes and the clock.
    private let midiOut: JackPort?
    /// `--midi-in`: the MIDI input `midi_in`.
    private let midiIn: JackPort?

    /// Opens the client `name` on the running server with its port `out`, or
    /// with `split` a port a voice (`bell`, `beat`, `sub`, `poly`); `role`
    /// says, at the server's rate, what it does with the transport: leading,
    /// it becomes the timebase master (before any cycle plays).
    /// With `midi`, a MIDI output `midi_out` too.
    package init(name: String, split: Bool = false, midi: Bool = false, midiIn: Bool = false,
                 transport role: (SampleRate) -> JackTransportRole = { _ in .ignore }) throws(JackError) {
        client = try JackClient(name: name)
        ports = if split { .split(try JackVoices(registeringOn: client)) } else { .mono(try client.registerOutput("out")) }
        midiOut = midi ? try client.registerMIDIOutput("midi_out") : nil
        self.midiIn = midiIn ? try client.registerMIDIInput("midi_in") : nil
        clock = client.clock
        transport = client.transport
        rate = SampleRate(unchecked: Int64(client.sampleRate))
        let role = role(rate)
        self.role = role
        if case .lead(let timebase, let force) = role {
            try client.becomeTimebaseMaster(timebase, conditional: !force)
            followsTransport = true
        } else {
            followsTransport = if case .follow = role { true } else { false }
        }
    }

    package var name: String { client.name }
    package var isShutDown: Bool { client.isShutDown }
    package var catchesUp: Bool { client.catchesUp }
    /// The frames of a cycle now.
    package var periodFrames: Int { Int(client.bufferSize) }

    /// Starts the cycles, which play `playback` (silence until it starts), and
    /// connects the port: to the system's playback ports (nil), nowhere (empty), or to these.
    /// The MIDI port, if any, to `midiDestinations`.
    package func activate(_ playback: JackPlayback, connect destinations: [String]?, midiDestinations: [String] = []) throws(JackError) {
        self.playback = playback
        try client.activate(process: self)
        try client.connectToPlayback(ports.all, destinations: destinations)
        if let midiOut {
            for destination in midiDestinations { try client.connect(midiOut, to: destination) }
        }
        // The metronome leads: the transport rolls from where it stands.
        if case .lead = role, !transport.position().rolling { transport.roll() }
    }

    /// Whether Space starts and stops the transport rather than the metronome alone.
    package var drivesTransport: Bool { followsTransport }

    package func startTransport() { transport.roll() }

    package func stopTransport() { transport.halt() }

    /// The process callback: JACK's real-time thread.
    package func process(frames: UInt32) -> Int32 {
        let midi = midiOut.flatMap { client.midiOutput($0, frames: frames) }
        midi?.clear()
        let input = midiIn.flatMap { client.midiInput($0, frames: frames) }
        let port: JackPort
        switch ports {
        case .mono(let out): port = out
        case .split(let voices): return process(frames: frames, into: voices, notes: midi, input: input)
        }
        let buffer = port.audioBuffer(frames: frames)
        guard let output = buffer.baseAddress else { return 0 }
        guard let playback, let times = clock.cycleTimes() else {
            output.update(repeating: 0, count: buffer.count)
            return 0
        }
        let latency = client.playbackLatency(of: port).upperBound
        playback.process(cycle(times, frames: buffer.count, latency: latency), into: output, midi: midi, input: input)
        return 0
    }

    package func close() { client.close() }

    /// The cycle as `JackPlayback` takes it. When it began, on our monotonic
    /// clock: JACK's (`jack_get_time`, not `CLOCK_MONOTONIC` in jackd2) and ours
    /// read together give the offset. jackd's cycle start is its filter's
    /// estimate, smooth while the server keeps time; after a stall it is off by
    /// up to the stall for seconds, and then the callback's own start stands in.
    private func cycle(_ times: JackCycleTimes, frames: Int, latency: UInt32) -> JackCycle {
        let jackNow = Int64(clock.time())
        let now = ourClock.now()
        let behind = jackNow - Int64(times.microseconds)
        let period = FrameTime.nanoseconds(inFrames: Int64(frames), at: rate.framesPerSecond) / 1_000
        let started = behind >= 0 && behind * 2 < period ? MonotonicInstant(nanoseconds: now.nanoseconds - behind * 1_000) : now
        return JackCycle(firstFrame: times.frames, microseconds: times.microseconds, startedAt: started, wokeAt: now, frames: frames,
                         latency: Int(latency), transport: followsTransport ? transport.position() : nil,
                         ranLate: jackNow >= Int64(times.nextMicroseconds))
    }

    /// Throws `serverGone` once the server has shut the client down.
    package func checkServer() throws(JackError) { try client.checkServer() }
}

extension JackOutput {
    /// The client's outputs: one port `out`, or one a voice.
    private enum Ports {
        case mono(JackPort)
        case split(JackVoices)

        /// In the order `JackConnectionPlan` pairs them.
        var all: [JackPort] {
            switch self {
            case .mono(let port): [port]
            case .split(let voices): voices.ports
            }
        }
    }

    /// The process callback with a port a voice: each voice into its port's buffer.
    private func process(frames: UInt32, into voices: JackVoices, notes midi: JackMIDIBuffer?, input: JackMIDIInput?) -> Int32 {
        guard let buffers = voices.buffers(frames: frames) else { return 0 }
        guard let playback, let times = clock.cycleTimes() else {
            buffers.update(repeating: 0, count: Int(frames))
            return 0
        }
        let latency = voices.playbackLatency(on: client)
        playback.process(cycle(times, frames: Int(frames), latency: latency), into: buffers, midi: midi, input: input)
        return 0
    }
}
