import CJack
import Glibc

/// libjack, loaded when a JACK client is first opened, never linked: a
/// machine without JACK runs every other path. The header gives the types;
/// each call is looked up once (`dlsym`) in `libjack.so.0`, which jackd2's
/// libjack-jackd2-0 and PipeWire's pipewire-jack both provide. Loading it
/// silences its own messages on stderr (`JackMessages`).
package struct JackLibrary: Sendable {
    /// The library's file name, by its ABI (the soname).
    static let fileName = "libjack.so.0"

    /// The library, loaded once, or why it could not be.
    package static let shared: Result<JackLibrary, JackError> = Result { () throws(JackError) in try load(fileName: fileName) }

    // The calls, as jack.h, transport.h and midiport.h declare them
    // (jack_client_t and jack_port_t are opaque).
    /// `jack_client_open` is variadic in C; the server's name, its only
    /// variadic argument, is never passed (JACK_DEFAULT_SERVER chooses it).
    package typealias ClientOpen = @convention(c) (UnsafePointer<CChar>?, jack_options_t, UnsafeMutablePointer<jack_status_t>?) -> OpaquePointer?
    package typealias ClientCall = @convention(c) (OpaquePointer?) -> Int32
    package typealias ClientName = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    package typealias ClientFrames = @convention(c) (OpaquePointer?) -> jack_nframes_t
    package typealias SetProcessCallback = @convention(c) (OpaquePointer?, JackProcessCallback?, UnsafeMutableRawPointer?) -> Int32
    package typealias SetXrunCallback = @convention(c) (OpaquePointer?, JackXRunCallback?, UnsafeMutableRawPointer?) -> Int32
    package typealias OnInfoShutdown = @convention(c) (OpaquePointer?, JackInfoShutdownCallback?, UnsafeMutableRawPointer?) -> Void
    package typealias SetBufferSizeCallback = @convention(c) (OpaquePointer?, JackBufferSizeCallback?, UnsafeMutableRawPointer?) -> Int32
    package typealias PortRegister = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt, UInt) -> OpaquePointer?
    package typealias PortGetBuffer = @convention(c) (OpaquePointer?, jack_nframes_t) -> UnsafeMutableRawPointer?
    package typealias PortName = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    package typealias PortByName = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias PortGetLatencyRange = @convention(c) (OpaquePointer?, jack_latency_callback_mode_t, UnsafeMutablePointer<jack_latency_range_t>?) -> Void
    package typealias Connect = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    package typealias RecomputeTotalLatencies = @convention(c) (OpaquePointer?) -> Int32
    package typealias GetPorts = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt) -> UnsafeMutablePointer<UnsafePointer<CChar>?>?
    package typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void
    package typealias GetCycleTimes = @convention(c) (OpaquePointer?, UnsafeMutablePointer<jack_nframes_t>?, UnsafeMutablePointer<jack_time_t>?,
                                                      UnsafeMutablePointer<jack_time_t>?, UnsafeMutablePointer<Float>?) -> Int32
    package typealias GetTime = @convention(c) () -> jack_time_t
    package typealias FramesToTime = @convention(c) (OpaquePointer?, jack_nframes_t) -> jack_time_t
    package typealias TimeToFrames = @convention(c) (OpaquePointer?, jack_time_t) -> jack_nframes_t
    package typealias TransportQuery = @convention(c) (OpaquePointer?, UnsafeMutablePointer<jack_position_t>?) -> jack_transport_state_t
    package typealias TransportCall = @convention(c) (OpaquePointer?) -> Void
    package typealias TransportLocate = @convention(c) (OpaquePointer?, jack_nframes_t) -> Int32
    package typealias SetTimebaseCallback = @convention(c) (OpaquePointer?, Int32, JackTimebaseCallback?, UnsafeMutableRawPointer?) -> Int32
    package typealias SetSyncCallback = @convention(c) (OpaquePointer?, JackSyncCallback?, UnsafeMutableRawPointer?) -> Int32
    package typealias MIDIGetEventCount = @convention(c) (UnsafeMutableRawPointer?) -> UInt32
    package typealias MIDIEventGet = @convention(c) (UnsafeMutablePointer<jack_midi_event_t>?, UnsafeMutableRawPointer?, UInt32) -> Int32
    package typealias MIDIClearBuffer = @convention(c) (UnsafeMutableRawPointer?) -> Void
    package typealias MIDIEventReserve = @convention(c) (UnsafeMutableRawPointer?, jack_nframes_t, Int) -> UnsafeMutablePointer<jack_midi_data_t>?

    package let clientOpen: ClientOpen
    package let clientClose: ClientCall
    package let getClientName: ClientName
    package let activate: ClientCall
    package let deactivate: ClientCall
    package let getSampleRate: ClientFrames
    package let getBufferSize: ClientFrames
    package let setProcessCallback: SetProcessCallback
    package let setXrunCallback: SetXrunCallback
    package let onInfoShutdown: OnInfoShutdown
    package let setBufferSizeCallback: SetBufferSizeCallback
    package let portRegister: PortRegister
    package let portGetBuffer: PortGetBuffer
    package let portName: PortName
    package let portByName: PortByName
    package let portGetLatencyRange: PortGetLatencyRange
    package let connect: Connect
    /// `jack_recompute_total_latencies`, where the library has it (it is optional in JACK's API).
    package let recomputeTotalLatencies: RecomputeTotalLatencies?
    package let getPorts: GetPorts
    package let free: Free
    package let lastFrameTime: ClientFrames
    package let frameTime: ClientFrames
    package let getCycleTimes: GetCycleTimes
    package let getTime: GetTime
    package let framesToTime: FramesToTime
    package let timeToFrames: TimeToFrames
    package let transportQuery: TransportQuery
    package let transportStart: TransportCall
    package let transportStop: TransportCall
    package let transportLocate: TransportLocate
    package let setTimebaseCallback: SetTimebaseCallback
    package let releaseTimebase: ClientCall
    package let setSyncCallback: SetSyncCallback
    package let midiGetEventCount: MIDIGetEventCount
    package let midiEventGet: MIDIEventGet
    package let midiClearBuffer: MIDIClearBuffer
    package let midiEventReserve: MIDIEventReserve

    /// Opens the library `fileName` (never closed: the process keeps it to the
    /// end) and finds every call; `shared` is the one a run uses.
    static func load(fileName: String) throws(JackError) -> JackLibrary {
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            throw JackError(.libraryMissing, "libjack is not installed (jackd2 or pipewire-jack provides it): \(lastError(fileName))")
        }
        JackMessages.silence(library: handle)
        return try JackLibrary(handle: handle, fileName: fileName)
    }

    private init(handle: UnsafeMutableRawPointer, fileName: String) throws(JackError) {
        func symbol<Function>(_ name: String, as type: Function.Type) throws(JackError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw JackError(.libraryMissing, "libjack is not installed whole (\(name) is missing): \(Self.lastError(fileName))")
            }
            return unsafeBitCast(address, to: type)
        }
        clientOpen = try symbol("jack_client_open", as: ClientOpen.self)
        clientClose = try symbol("jack_client_close", as: ClientCall.self)
        getClientName = try symbol("jack_get_client_name", as: ClientName.self)
        activate = try symbol("jack_activate", as: ClientCall.self)
        deactivate = try symbol("jack_deactivate", as: ClientCall.self)
        getSampleRate = try symbol("jack_get_sample_rate", as: ClientFrames.self)
        getBufferSize = try symbol("jack_get_buffer_size", as: ClientFrames.self)
        setProcessCallback = try symbol("jack_set_process_callback", as: SetProcessCallback.self)
        setXrunCallback = try symbol("jack_set_xrun_callback", as: SetXrunCallback.self)
        onInfoShutdown = try symbol("jack_on_info_shutdown", as: OnInfoShutdown.self)
        setBufferSizeCallback = try symbol("jack_set_buffer_size_callback", as: SetBufferSizeCallback.self)
        portRegister = try symbol("jack_port_register", as: PortRegister.self)
        portGetBuffer = try symbol("jack_port_get_buffer", as: PortGetBuffer.self)
        portName = try symbol("jack_port_name", as: PortName.self)
        portByName = try symbol("jack_port_by_name", as: PortByName.self)
        portGetLatencyRange = try symbol("jack_port_get_latency_range", as: PortGetLatencyRange.self)
        connect = try symbol("jack_connect", as: Connect.self)
        recomputeTotalLatencies = try? symbol("jack_recompute_total_latencies", as: RecomputeTotalLatencies.self)
        getPorts = try symbol("jack_get_ports", as: GetPorts.self)
        free = try symbol("jack_free", as: Free.self)
        lastFrameTime = try symbol("jack_last_frame_time", as: ClientFrames.self)
        frameTime = try symbol("jack_frame_time", as: ClientFrames.self)
        getCycleTimes = try symbol("jack_get_cycle_times", as: GetCycleTimes.self)
        getTime = try symbol("jack_get_time", as: GetTime.self)
        framesToTime = try symbol("jack_frames_to_time", as: FramesToTime.self)
        timeToFrames = try symbol("jack_time_to_frames", as: TimeToFrames.self)
        transportQuery = try symbol("jack_transport_query", as: TransportQuery.self)
        transportStart = try symbol("jack_transport_start", as: TransportCall.self)
        transportStop = try symbol("jack_transport_stop", as: TransportCall.self)
        transportLocate = try symbol("jack_transport_locate", as: TransportLocate.self)
        setTimebaseCallback = try symbol("jack_set_timebase_callback", as: SetTimebaseCallback.self)
        releaseTimebase = try symbol("jack_release_timebase", as: ClientCall.self)
        setSyncCallback = try symbol("jack_set_sync_callback", as: SetSyncCallback.self)
        midiGetEventCount = try symbol("jack_midi_get_event_count", as: MIDIGetEventCount.self)
        midiEventGet = try symbol("jack_midi_event_get", as: MIDIEventGet.self)
        midiClearBuffer = try symbol("jack_midi_clear_buffer", as: MIDIClearBuffer.self)
        midiEventReserve = try symbol("jack_midi_event_reserve", as: MIDIEventReserve.self)
        catchesUp = Self.mappedPath(containing: fileName)?.contains("pipewire") ?? false
    }

    /// Whether this libjack is PipeWire's (`pw-jack`): its frame time catches
    /// up with real time after its server stalls (the missed cycles run in a
    /// burst), where jackd's stands still while jackd is stopped.
    package let catchesUp: Bool

    /// The path of the first file mapped into the process whose name holds
    /// `name` (`/proc/self/maps`): which libjack `dlopen` found.
    private static func mappedPath(containing name: String) -> String? {
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line = [UInt8](repeating: 0, count: 4_096)
        while line.withUnsafeMutableBufferPointer({ buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { fgets($0, Int32(buffer.count), maps) }
        }) != nil {
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }, as: UTF8.self)
            if text.contains(name), let slash = text.firstIndex(of: "/") { return String(text[slash...]) }
        }
        return nil
    }

    private static func lastError(_ fileName: String) -> String {
        dlerror().map { String(cString: $0) } ?? "\(fileName): cannot be loaded"
    }
}
