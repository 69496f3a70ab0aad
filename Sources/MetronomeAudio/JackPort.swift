import CJack

/// One port of a `JackClient`: its `jack_port_t`, which JACK frees when the
/// client closes, so a port is valid while its client is open.
///
/// A plain value of a few words (a pointer and the two libjack calls it
/// makes) that the process callback can keep and copy without retaining or
/// allocating anything.
package struct JackPort: @unchecked Sendable {
    let handle: OpaquePointer
    private let getBuffer: JackLibrary.PortGetBuffer
    private let portName: JackLibrary.PortName
    /// Whether JACK plays into this port (`JackPortIsInput`): a MIDI input; every other port is an output.
    package let isInput: Bool

    init(handle: OpaquePointer, library: JackLibrary, isInput: Bool) {
        self.handle = handle
        getBuffer = library.portGetBuffer
        portName = library.portName
        self.isInput = isInput
    }

    /// The port's full name, `client:port`, as `jack_lsp` lists it (`jack_port_name`).
    package var name: String {
        portName(handle).map { String(cString: $0) } ?? ""
    }

    /// The audio port's buffer for this cycle (`jack_port_get_buffer`): only
    /// inside the process callback, `frames` the frames it was called for.
    package func audioBuffer(frames: UInt32) -> UnsafeMutableBufferPointer<Float> {
        let start = getBuffer(handle, frames)?.assumingMemoryBound(to: Float.self)
        return UnsafeMutableBufferPointer(start: start, count: start == nil ? 0 : Int(frames))
    }

    /// The MIDI port's buffer for this cycle (`jack_port_get_buffer`), for
    /// libjack's `jack_midi_…` calls: only inside the process callback.
    package func midiBuffer(frames: UInt32) -> UnsafeMutableRawPointer? {
        getBuffer(handle, frames)
    }
}
