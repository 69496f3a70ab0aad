import CJack
import Glibc
import Synchronization
import MetronomeTiming

/// A native JACK client: its `jack_client_t`, opened by `init` and closed by
/// `close()` or when released, its ports, their connections and the
/// callback JACK runs every cycle.
///
/// It never starts a server (`JackNoStartServer`): the server is the one
/// `JACK_DEFAULT_SERVER` names, or JACK's default. When the name asked for
/// is taken, JACK gives the client another (`metronome-01`), as klick lets
/// it; `name` says which. The server's shutdown and xruns are noted from
/// JACK's threads into atomics, read here from any thread.
package final class JackClient {
    /// The client's name as JACK gave it (`jack_get_client_name`).
    package let name: String
    /// The frame counter and clock, for the process callback to keep.
    package let clock: JackClock
    private let library: JackLibrary
    private let handle: OpaquePointer
    private let events: JackClientEvents
    private var processor: JackProcessorBox?
    /// The timebase master's answer, while the client may be asked for it.
    private var timebaseBox: JackTimebaseBox?
    private var isClosed = false

    /// Opens a client named `name` on the running server (`jack_client_open`),
    /// and has JACK tell it of the server's shutdown and of xruns.
    package init(name: String, library: Result<JackLibrary, JackError> = JackLibrary.shared) throws(JackError) {
        let library = try library.get()
        var status = jack_status_t(rawValue: 0)
        guard let handle = library.clientOpen(name, JackNoStartServer, &status) else {
            throw Self.openFailure(status, name: name)
        }
        let events = JackClientEvents()
        let context = Unmanaged.passUnretained(events).toOpaque()
        library.onInfoShutdown(handle, { _, reason, context in
            guard let context else { return }
            Unmanaged<JackClientEvents>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.noteShutdown(reason) }
        }, context)
        let xruns = library.setXrunCallback(handle, { context in
            guard let context else { return 0 }
            Unmanaged<JackClientEvents>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.noteXrun() }
            return 0
        }, context)
        guard xruns == 0 else {
            _ = library.clientClose(handle)
            throw JackError(.activation, "JACK refused the client '\(name)' its xrun callback (jack_set_xrun_callback: \(xruns))")
        }
        self.name = library.getClientName(handle).map { String(cString: $0) } ?? name
        self.clock = JackClock(client: handle, library: library)
        self.library = library
        self.handle = handle
        self.events = events
    }

    deinit {
        close()
    }

    /// Whether the server's frame time catches up with real time after a stall (PipeWire's JACK).
    package var catchesUp: Bool { library.catchesUp }

    /// The server's sample rate (`jack_get_sample_rate`).
    package var sampleRate: UInt32 { library.getSampleRate(handle) }

    /// The frames of a cycle now (`jack_get_buffer_size`); the server may change it while the client runs.
    package var bufferSize: UInt32 { library.getBufferSize(handle) }

    /// Registers a mono audio output named `shortName` (`client:shortName` in JACK).
    package func registerOutput(_ shortName: String) throws(JackError) -> JackPort {
        try register(shortName, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsOutput)
    }

    /// Registers a MIDI output named `shortName`.
    package func registerMIDIOutput(_ shortName: String) throws(JackError) -> JackPort {
        try register(shortName, type: JACK_DEFAULT_MIDI_TYPE, flags: JackPortIsOutput)
    }

    /// Registers a MIDI input named `shortName`.
    package func registerMIDIInput(_ shortName: String) throws(JackError) -> JackPort {
        try register(shortName, type: JACK_DEFAULT_MIDI_TYPE, flags: JackPortIsInput)
    }

    private func register(_ shortName: String, type: String, flags: JackPortFlags) throws(JackError) -> JackPort {
        guard let port = library.portRegister(handle, shortName, type, UInt(flags.rawValue), 0) else {
            throw JackError(.portRegistration, "JACK refused the port '\(name):\(shortName)' (jack_port_register)")
        }
        return JackPort(handle: port, library: library, isInput: flags == JackPortIsInput)
    }

    /// Connects `port` to the port named `destination` (`jack_connect`): an
    /// output to an input, or for an input, the output named to it. A
    /// connection already made is no failure. Only once activated: JACK
    /// refuses an inactive client's connections.
    package func connect(_ port: JackPort, to destination: String) throws(JackError) {
        let ours = port.name
        let result = port.isInput ? library.connect(handle, destination, ours) : library.connect(handle, ours, destination)
        guard result != 0, result != EEXIST else { return }
        guard library.portByName(handle, destination) != nil else {
            throw JackError(.connection, "there is no JACK port '\(destination)' to connect '\(ours)' to (jack_lsp lists them)")
        }
        throw JackError(.connection, "JACK refused to connect '\(ours)' to '\(destination)' (jack_connect: \(result))")
    }

    /// Has JACK work out every port's latency now (`jack_recompute_total_latencies`), rather than
    /// in its own time after a connection: the first cycles played then carry the latency of the
    /// ports just connected, and the picture does not start a connection's latency early.
    package func settleLatencies() {
        _ = library.recomputeTotalLatencies?(handle)
    }

    /// The system's audio playback ports (`JackPortIsPhysical | JackPortIsInput`), in JACK's order.
    package func physicalPlaybackPorts() -> [String] {
        let flags = UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)
        guard let list = library.getPorts(handle, nil, JACK_DEFAULT_AUDIO_TYPE, flags) else { return [] }
        defer { library.free(list) }
        var names: [String] = []
        var entry = list
        while let name = entry.pointee {
            names.append(String(cString: name))
            entry += 1
        }
        return names
    }

    /// Connects `ports` where `destinations` says, by `JackConnectionPlan`:
    /// nil for the system's playback ports, an empty list for none (`--no-connect`).
    /// A server without playback ports leaves them unconnected. Once activated.
    /// Returns once JACK reports on each port the latency its new connections give it
    /// (the most of theirs), or after half a second: JACK works latencies out in its own
    /// time, and the cycles before would put the heard frame a connection's latency late.
    package func connectToPlayback(_ ports: [JackPort], destinations: [String]?) throws(JackError) {
        let pairs = if let destinations {
            JackConnectionPlan.pairs(ports: ports.count, destinations: destinations)
        } else {
            JackConnectionPlan.pairs(ports: ports.count, physical: physicalPlaybackPorts())
        }
        var expected = [UInt32](repeating: 0, count: ports.count)
        for pair in pairs {
            try connect(ports[pair.port], to: pair.destination)
            if let destination = library.portByName(handle, pair.destination) {
                var range = jack_latency_range_t()
                library.portGetLatencyRange(destination, JackPlaybackLatency, &range)
                expected[pair.port] = max(expected[pair.port], max(range.min, range.max))
            }
        }
        settleLatencies()
        // A bounded poll of the condition: 100 looks, 5 ms apart.
        for _ in 0..<100 {
            if zip(ports, expected).allSatisfy({ playbackLatency(of: $0).upperBound >= $1 }) { return }
            usleep(5_000)
        }
    }

    /// The frames between `port`'s buffer and the ear, least and most over
    /// every path from it (`jack_port_get_latency_range`, `JackPlaybackLatency`):
    /// known once the port is connected, and changed when the graph is.
    package func playbackLatency(of port: JackPort) -> ClosedRange<UInt32> {
        var range = jack_latency_range_t()
        library.portGetLatencyRange(port.handle, JackPlaybackLatency, &range)
        return min(range.min, range.max)...max(range.min, range.max)
    }

    /// The current cycle's times; only inside the process callback.
    package func cycleTimes() -> JackCycleTimes? { clock.cycleTimes() }

    /// The frame counter at the current cycle's first frame; inside the process callback.
    package func lastFrameTime() -> UInt32 { clock.lastFrameTime() }

    /// Has JACK call `processor` every cycle from now (`jack_set_process_callback`,
    /// `jack_activate`); the client keeps it until it closes. Once only.
    package func activate(process processor: any JackProcessor) throws(JackError) {
        precondition(self.processor == nil && !isClosed, "a JACK client is activated once, while open")
        let box = JackProcessorBox(processor)
        let set = library.setProcessCallback(handle, { frames, context in
            guard let context else { return 0 }
            return Unmanaged<JackProcessorBox>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.processor.process(frames: frames) }
        }, Unmanaged.passUnretained(box).toOpaque())
        guard set == 0 else {
            throw JackError(.activation, "JACK refused the client '\(name)' its process callback (jack_set_process_callback: \(set))")
        }
        self.processor = box
        let activated = library.activate(handle)
        guard activated == 0 else {
            throw JackError(.activation, "JACK refused to activate the client '\(name)' (jack_activate: \(activated))")
        }
    }

    /// The transport, for the process callback to keep.
    package var transport: JackTransport { JackTransport(client: handle, library: library) }

    /// The cycle's events on the MIDI input `port`; only inside the process callback.
    package func midiInput(_ port: JackPort, frames: UInt32) -> JackMIDIInput? {
        guard let buffer = port.midiBuffer(frames: frames) else { return nil }
        return JackMIDIInput(buffer: buffer, library: library)
    }

    /// `port`'s MIDI buffer for this cycle, to write into; only inside the process callback.
    package func midiOutput(_ port: JackPort, frames: UInt32) -> JackMIDIBuffer? {
        guard let buffer = port.midiBuffer(frames: frames) else { return nil }
        return JackMIDIBuffer(buffer: buffer, library: library)
    }

    /// Makes the client JACK's timebase master, answering from `timebase`
    /// (`jack_set_timebase_callback`): `conditional`, only when no other client
    /// is; else taking the role. Kept until the client closes or `releaseTimebase()`.
    package func becomeTimebaseMaster(_ timebase: TransportTimebase, conditional: Bool) throws(JackError) {
        let box = JackTimebaseBox(timebase)
        let result = library.setTimebaseCallback(handle, conditional ? 1 : 0, { _, _, position, _, context in
            guard let position, let context else { return }
            Unmanaged<JackTimebaseBox>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.fill(position) }
        }, Unmanaged.passUnretained(box).toOpaque())
        if result == EBUSY {
            throw JackError(.timebaseTaken, "another JACK client is the timebase master: --transport master --force takes the role from it")
        }
        guard result == 0 else {
            throw JackError(.activation, "JACK refused to make '\(name)' the timebase master (jack_set_timebase_callback: \(result))")
        }
        timebaseBox = box
    }

    /// Gives up the timebase master's role (`jack_release_timebase`), if held.
    package func releaseTimebase() {
        guard timebaseBox != nil, !isClosed else { return }
        _ = library.releaseTimebase(handle)
    }

    /// Whether the server shut the client down (it stopped, or threw the client out).
    package var isShutDown: Bool { events.isShutDown }

    /// The server's words when it shut the client down; nil while it has not.
    package var shutdownReason: String? { events.reason }

    /// The xruns the server reported since the client opened.
    package var xrunCount: Int { events.xruns }

    /// Throws `serverGone` once the server has shut the client down.
    package func checkServer() throws(JackError) {
        guard let reason = shutdownReason else { return }
        let words = reason.isEmpty ? "" : ": \(reason)"
        throw JackError(.serverGone, "the JACK server shut the client '\(name)' down\(words)")
    }

    /// Closes the client (`jack_client_close`): it stops, its ports go, and
    /// the processor is let go. Closing again does nothing.
    package func close() {
        guard !isClosed else { return }
        releaseTimebase()
        isClosed = true
        _ = library.clientClose(handle)
        processor = nil
        timebaseBox = nil
    }

    private static func openFailure(_ status: jack_status_t, name: String) -> JackError {
        let server = getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) } ?? "default"
        func has(_ bit: JackStatus) -> Bool { status.rawValue & bit.rawValue != 0 }
        let why = if has(JackServerFailed) {
            "no JACK server '\(server)' is running (the metronome never starts one)"
        } else if has(JackVersionError) {
            "the JACK server '\(server)' speaks another protocol than this libjack"
        } else if has(JackInvalidOption) || has(JackNameNotUnique) {
            "the JACK server '\(server)' refused the client name '\(name)'"
        } else {
            "cannot open a client of the JACK server '\(server)' (status 0x\(String(status.rawValue, radix: 16)))"
        }
        return JackError(.serverUnavailable, why)
    }
}

/// What JACK's threads tell a client: that the server shut it down, and why,
/// and each xrun. Written by libjack's callbacks without allocating (the
/// reason copied into a buffer made beforehand); read from any thread.
final class JackClientEvents: @unchecked Sendable {
    // The reason's bytes are written once, before `shutDown` is released, and read only after it is acquired.
    private static let reasonCapacity = 256
    private let reasonBytes = UnsafeMutablePointer<CChar>.allocate(capacity: reasonCapacity)
    private let shutDown = Atomic<Bool>(false)
    private let shutDownClaimed = Atomic<Bool>(false)
    private let xrunCount = Atomic<Int>(0)

    init() {
        reasonBytes.initialize(repeating: 0, count: Self.reasonCapacity)
    }

    deinit {
        reasonBytes.deallocate()
    }

    func noteShutdown(_ reason: UnsafePointer<CChar>?) {
        guard !shutDownClaimed.exchange(true, ordering: .relaxed) else { return }
        var length = 0
        if let reason {
            while length < Self.reasonCapacity - 1, reason[length] != 0 {
                reasonBytes[length] = reason[length]
                length += 1
            }
        }
        reasonBytes[length] = 0
        shutDown.store(true, ordering: .releasing)
    }

    func noteXrun() {
        xrunCount.add(1, ordering: .relaxed)
    }

    var isShutDown: Bool { shutDown.load(ordering: .acquiring) }

    var reason: String? { isShutDown ? String(cString: reasonBytes) : nil }

    var xruns: Int { xrunCount.load(ordering: .relaxed) }
}
